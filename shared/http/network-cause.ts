/**
 * The network cause of a failed fetch, for people: undici reports "fetch failed" with the
 * real reason in `cause` (`ECONNREFUSED 127.0.0.1:3001`, `ENOTFOUND api.example.com`,
 * a TLS error...). Undefined when there is nothing more specific than the error's name.
 */
export function networkCause(e: unknown): string | undefined {
  let cur: unknown = e;
  // The deepest cause with a code or message says most (fetch failed -> connect ECONNREFUSED ...).
  let found: string | undefined;
  for (let depth = 0; cur && typeof cur === 'object' && depth < 4; depth++) {
    const { code, message, address, port, hostname } = cur as {
      code?: unknown;
      message?: unknown;
      address?: unknown;
      port?: unknown;
      hostname?: unknown;
    };
    if (typeof code === 'string' && /^E[A-Z_]+$|^ERR_|^UND_ERR|CERT|SSL/.test(code)) {
      const where =
        typeof address === 'string'
          ? ` ${address}${port !== undefined ? `:${String(port)}` : ''}`
          : typeof hostname === 'string'
            ? ` ${hostname}`
            : '';
      found = `${code}${where}`;
    } else if (found === undefined && typeof message === 'string' && message !== 'fetch failed' && depth > 0) {
      found = message.slice(0, 200);
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return found;
}

/** `: <cause>` for a message, or the error's name when no cause is known. */
export function networkCauseSuffix(e: unknown): string {
  const cause = networkCause(e);
  return cause ? `: ${cause}` : `: ${(e as Error)?.name ?? 'network error'}`;
}

/** What the common connection errors mean, in words. */
const meaningOfCode: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'connect timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
};

/**
 * A failed exchange said for people, with the cause that names the peer:
 * `connection refused (ECONNREFUSED 127.0.0.1:4000)`, `host not found (ENOTFOUND x.example)`,
 * else `network error (<cause or the error's name>)`.
 */
export function describeNetworkFailure(e: unknown): string {
  const cause = networkCause(e);
  const code = cause?.split(' ')[0] ?? '';
  const meaning = meaningOfCode[code];
  return `${meaning ?? 'network error'} (${cause ?? (e as Error)?.name ?? 'unknown'})`;
}
