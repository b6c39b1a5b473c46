import type { Logger } from '../shared/observability/logger';

/** One server-sent event: its `event` name (default `message`) and its `data` lines joined. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The largest event the proxy reads: GitHub caps a payload at 25 MB, and the relay's JSON
 * (headers, the body re-encoded) adds to it. Anything larger is not a delivery.
 */
export const maxRelayEventChars = 32 * 1024 * 1024;

export interface SseParserOptions {
  /** An event whose lines add up to more than this is skipped (default {@link maxRelayEventChars}). */
  maxEventChars?: number;
  /** Told the size reached when an event is skipped for its size. */
  onOversized?: (chars: number) => void;
}

/**
 * Parses an SSE stream incrementally (the EventSource format of the HTML standard): lines
 * `field: value`, `:` comments, an event ends at a blank line, `data` lines joined by "\n".
 * Feed it text chunks; it returns the events completed so far. It holds at most about
 * `maxEventChars` of one event: a relay that sends more (or a line that never ends) has that
 * event skipped, up to its blank line, and the stream read on.
 */
export function sseParser(options: SseParserOptions = {}): (chunk: string) => SseEvent[] {
  const max = options.maxEventChars ?? maxRelayEventChars;
  const lineEnd = /\r\n|\r|\n/g;
  let buffer = '';
  /** Where the search for the next line end resumes in `buffer` (what is before it has none). */
  let scanFrom = 0;
  let event = '';
  let data: string[] = [];
  let held = 0;
  let id: string | undefined;
  /** Inside an event skipped for its size: its lines are dropped until its blank line. */
  let skipping = false;

  const reset = () => {
    event = '';
    data = [];
    held = 0;
  };
  const skip = (chars: number) => {
    reset();
    skipping = true;
    options.onOversized?.(chars);
  };
  const line = (text: string, out: SseEvent[]) => {
    if (text === '') {
      if (!skipping && data.length > 0) out.push({ event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
      skipping = false;
      reset();
      return;
    }
    if (skipping || text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') {
      data.push(value);
      held += value.length + 1;
      if (held > max) skip(held);
    } else if (field === 'id') id = value;
  };

  return (chunk) => {
    buffer += chunk;
    const out: SseEvent[] = [];
    let start = 0;
    lineEnd.lastIndex = scanFrom;
    for (let m = lineEnd.exec(buffer); m; m = lineEnd.exec(buffer)) {
      // A CR that ends the text so far may be the first half of a CRLF: wait for what follows.
      if (m[0] === '\r' && m.index === buffer.length - 1) break;
      line(buffer.slice(start, m.index), out);
      start = m.index + m[0].length;
    }
    buffer = buffer.slice(start);
    scanFrom = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
    // A line still open counts toward its event: past the bound, it is dropped as it comes.
    if (held + buffer.length > max) {
      const reached = held + buffer.length;
      buffer = '';
      scanFrom = 0;
      if (!skipping) skip(reached);
    }
    return out;
  };
}

/** A delivery as the relay carries it, ready to be replayed. */
export interface RelayedDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Hop-by-hop and transport headers the replay sets itself. */
const dropped = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'accept-encoding',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-request-start',
  'via',
  'connect-time',
  'total-route-time',
]);

/**
 * A smee.io message as a delivery for our intake. smee's format (smee-client's forwarding
 * code): the data is a JSON object whose keys are the original request's headers
 * (lower-case), plus `body` (the JSON body, parsed), `query` (the query string, parsed) and
 * `timestamp`. We also take `rawBody` (a string) when a relay sends it: the signature is
 * over the exact bytes, and re-serializing `body` gives them back only when the sender wrote
 * compact JSON as the code host does (smee-client relies on the same).
 * Routing: `query.endpoint` (our hooks point at `WEBHOOK_PROXY_URL?endpoint=<id>`), else the
 * GitHub App's hook (`X-GitHub-Hook-Installation-Target-Type: integration`).
 */
export function relayedDelivery(data: string): RelayedDelivery | { skip: string } {
  let msg: Record<string, unknown>;
  try {
    msg = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return { skip: 'not JSON' };
  }
  if (!msg || typeof msg !== 'object' || !('body' in msg || 'rawBody' in msg)) return { skip: 'no body' };
  const { body, rawBody, query, timestamp: _t, ...rest } = msg;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (dropped.has(k.toLowerCase()) || (typeof v !== 'string' && typeof v !== 'number')) continue;
    headers[k.toLowerCase()] = String(v);
  }
  const endpoint = (query as { endpoint?: unknown } | undefined)?.endpoint;
  let path: string;
  if (typeof endpoint === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(endpoint)) path = `/webhooks/github/${endpoint}`;
  else if (headers['x-github-hook-installation-target-type'] === 'integration') path = '/webhooks/github/app';
  else return { skip: 'no ?endpoint= in the relayed URL and not a GitHub App delivery' };
  const text = typeof rawBody === 'string' ? rawBody : JSON.stringify(body);
  headers['content-type'] ??= 'application/json';
  return { path, headers, body: text };
}

export interface WebhookProxyOptions {
  /** The relay channel (WEBHOOK_PROXY_URL). */
  source: string;
  /** This runtime's own base URL (the intake). */
  target: string;
  logger: Logger;
  signal: AbortSignal;
  fetch?: typeof fetch;
  /** Wait before reconnecting after the stream ends or fails (ms; doubles up to 30 s). */
  retryMs?: number;
  /** Called after each replay (tests wait on it). */
  onReplay?: (delivery: RelayedDelivery, status: number) => void;
}

/**
 * `WEBHOOK_PROXY_URL`: real deliveries to a laptop, as Probot does. Reads the relay's event
 * stream (a hand-written SSE client over fetch) and replays each delivery unchanged, headers
 * and bytes, into this runtime's intake, where the signature is checked as for any delivery.
 * Reconnects until `signal` aborts.
 */
export async function runWebhookProxy(options: WebhookProxyOptions): Promise<void> {
  const fetchImpl = options.fetch ?? fetch;
  const base = options.retryMs ?? 1000;
  let wait = base;
  while (!options.signal.aborted) {
    try {
      const res = await fetchImpl(options.source, { headers: { accept: 'text/event-stream' }, signal: options.signal });
      if (!res.ok || !res.body) throw new Error(`the relay answered ${res.status}`);
      options.logger.info('webhook proxy connected', { source: options.source });
      wait = base;
      const parse = sseParser({
        onOversized: (chars) =>
          options.logger.warn('webhook proxy: message skipped', { reason: `larger than a delivery can be (over ${chars} characters)` }),
      });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (const ev of parse(decoder.decode(chunk, { stream: true }))) {
          if (ev.event !== 'message') continue;
          const delivery = relayedDelivery(ev.data);
          if ('skip' in delivery) {
            options.logger.warn('webhook proxy: message skipped', { reason: delivery.skip });
            continue;
          }
          try {
            const answer = await fetchImpl(`${options.target}${delivery.path}`, {
              method: 'POST',
              headers: delivery.headers,
              body: delivery.body,
              signal: options.signal,
            });
            await answer.arrayBuffer();
            options.logger.info('webhook proxy: delivery replayed', {
              path: delivery.path,
              event: delivery.headers['x-github-event'],
              deliveryId: delivery.headers['x-github-delivery'],
              status: answer.status,
            });
            options.onReplay?.(delivery, answer.status);
          } catch (e) {
            if (options.signal.aborted) return;
            options.logger.warn('webhook proxy: replay failed', { path: delivery.path, error: e });
          }
        }
      }
    } catch (e) {
      if (options.signal.aborted) return;
      options.logger.warn('webhook proxy: stream failed; reconnecting', { source: options.source, retryInMs: wait, error: e });
    }
    if (options.signal.aborted) return;
    await new Promise<void>((r) => {
      const t = setTimeout(r, wait);
      options.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          r();
        },
        { once: true },
      );
    });
    wait = Math.min(wait * 2, 30_000);
  }
}
