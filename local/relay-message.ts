/** A delivery as the relay carries it, ready to be replayed. */
export interface RelayedDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * The headers of the original request that are replayed: the code host's own and the body's
 * type. Everything else in the message is the relay's (`body`, `rawdata`, `query`,
 * `timestamp`) or belongs to the hop that reached it (`Host`, `Connection`, `Expect`,
 * `Content-Length`, `Transfer-Encoding`, forwarding headers...): replayed as a header, a
 * body field becomes a header larger than any server takes (431), and `Expect` makes the
 * replay's own request fail.
 */
function replayable(name: string): boolean {
  return name === 'content-type' || name === 'user-agent' || name.startsWith('x-github-') || name.startsWith('x-hub-signature');
}

/** Visible ASCII and spaces only: no control character (a CR or LF would split the header). */
function printable(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/** The longest header value replayed: signatures and ids are short. */
const maxHeaderValueChars = 1024;

/**
 * A smee.io message as a delivery for our intake. smee's format (probot/smee.io
 * lib/server.js; smee-client forwards it the same way): the data is a JSON object whose
 * keys are the original request's headers (lower-case), plus `body` (the JSON body,
 * parsed), `query` (the query string, parsed) and `timestamp`. The versions that also sent
 * the raw body called it `rawdata` (a string); it is taken when present, since the
 * signature is over the exact bytes and re-serializing `body` gives them back only when the
 * sender wrote compact JSON as the code host does (smee-client relies on the same). Those
 * versions joined the body's chunks as text, so a character split between two chunks came
 * out as U+FFFD: such a `rawdata` is passed over for the re-serialized body.
 * Routing: `query.endpoint` (our hooks point at `WEBHOOK_PROXY_URL?endpoint=<id>`), else the
 * GitHub App's hook (`X-GitHub-Hook-Installation-Target-Type: integration`).
 */
export function relayedDelivery(data: string): RelayedDelivery | { skip: string; deliveryId?: string } {
  let msg: Record<string, unknown>;
  try {
    msg = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return { skip: 'not JSON' };
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return { skip: 'not a relayed request' };
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(msg)) {
    const name = k.toLowerCase();
    if (!replayable(name) || (typeof v !== 'string' && typeof v !== 'number')) continue;
    const value = String(v);
    if (value.length > maxHeaderValueChars || !printable(value)) continue;
    headers[name] = value;
  }
  const deliveryId = headers['x-github-delivery'];
  const skip = (reason: string) => ({ skip: reason, ...(deliveryId !== undefined ? { deliveryId } : {}) });
  if (!('body' in msg) && typeof msg.rawdata !== 'string') return skip('no body');
  const endpoint = (msg.query as { endpoint?: unknown } | undefined)?.endpoint;
  let path: string;
  if (typeof endpoint === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(endpoint)) path = `/webhooks/github/${endpoint}`;
  else if (headers['x-github-hook-installation-target-type'] === 'integration') path = '/webhooks/github/app';
  else return skip('no ?endpoint= in the relayed URL and not a GitHub App delivery');
  const reserialized = 'body' in msg ? JSON.stringify(msg.body) : undefined;
  const raw = typeof msg.rawdata === 'string' ? msg.rawdata : undefined;
  const body =
    raw !== undefined && !(raw.includes('\uFFFD') && reserialized !== undefined && !reserialized.includes('\uFFFD')) ? raw : reserialized;
  headers['content-type'] ??= 'application/json';
  if (raw === undefined && !headers['content-type'].startsWith('application/json'))
    return skip(`a form body (${headers['content-type']}) cannot be rebuilt from the relay's parsed copy of it`);
  if (body === undefined) return skip('no body');
  return { path, headers, body };
}
