/** A browser-ish HTTP client for the front door: keeps cookies per client, follows no redirect (each hop is asserted). */
export function httpClient(base: string, key?: string) {
  const cookies = new Map<string, string>();
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const url = path.startsWith('http') ? path : `${base}${path}`;
    const h: Record<string, string> = { ...headers };
    if (key && !h.authorization) h.authorization = `Bearer ${key}`;
    if (cookies.size) h.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let payload: string | Buffer | undefined;
    if (Buffer.isBuffer(body) || typeof body === 'string') payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(url, { method, headers: h, body: payload, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, ...v] = (pair ?? '').split('=');
      if (k) cookies.set(k.trim(), v.join('='));
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: json as Record<string, any> };
  };
  return { call, cookies };
}
