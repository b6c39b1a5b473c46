import type { Logger } from '../shared/observability/logger';
import { relayedDelivery, type RelayedDelivery } from './relay-message';
import { sseParser } from './sse-parser';

export { maxRelayEventChars, sseParser, type SseEvent, type SseParserOptions } from './sse-parser';
export { relayedDelivery, type RelayedDelivery } from './relay-message';

export interface WebhookProxyOptions {
  /** The relay channel (WEBHOOK_PROXY_URL). */
  source: string;
  /** This runtime's own base URL (the intake). */
  target: string;
  logger: Logger;
  signal: AbortSignal;
  fetch?: typeof fetch;
  /** First wait before reconnecting after the stream ends or fails (ms); doubles up to `maxRetryMs`. */
  retryMs?: number;
  /** The longest wait between two attempts to reconnect (ms): each attempt is a probe, so the reader is back within this long once the relay answers. */
  maxRetryMs?: number;
  /** A stream silent this long is taken for dead and opened again (ms; smee.io pings every 30 s). */
  idleMs?: number;
  /** How long one replay into the intake may take (ms). */
  replayTimeoutMs?: number;
  /** The window of the log budget for events skipped or refused (ms). */
  quietWindowMs?: number;
  /** Told when the reader starts and stops listening: what the relay carries while it is not is lost here. */
  onListening?: (listening: boolean) => void;
  /** Called after each replay (tests wait on it). */
  onReplay?: (delivery: RelayedDelivery, status: number) => void;
}

/** Lines about skipped or refused events shown per window; the rest are counted into one summary line. */
const linesPerWindow = 5;

/**
 * Anyone who knows a relay channel's URL can post to it, so the lines its events cause are
 * bounded: the first few of a window in full, then one summary line at the window's end.
 */
class QuietLog {
  private shown = 0;
  private suppressed = 0;
  private readonly reasons = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly windowMs: number,
  ) {}

  warn(message: string, fields: Record<string, unknown>, reason: string): void {
    this.timer ??= setTimeout(() => this.flush(), this.windowMs).unref();
    if (this.shown < linesPerWindow) {
      this.shown++;
      this.logger.warn(message, fields);
      return;
    }
    this.suppressed++;
    if (this.reasons.size < 20 || this.reasons.has(reason)) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.suppressed > 0)
      this.logger.warn('webhook proxy: summary of the events skipped or refused that were not logged', {
        suppressed: this.suppressed,
        reasons: Object.fromEntries(this.reasons),
        windowMs: this.windowMs,
      });
    this.shown = 0;
    this.suppressed = 0;
    this.reasons.clear();
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((r) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      r();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Replays one delivery into the intake, in the order the relay sent them. */
async function replay(options: WebhookProxyOptions, quiet: QuietLog, fetchImpl: typeof fetch, delivery: RelayedDelivery): Promise<void> {
  const deliveryId = delivery.headers['x-github-delivery'];
  const event = delivery.headers['x-github-event'];
  try {
    const answer = await fetchImpl(`${options.target}${delivery.path}`, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.replayTimeoutMs ?? 15_000)]),
    });
    await answer.arrayBuffer();
    const fields = { path: delivery.path, event, deliveryId, status: answer.status };
    if (answer.ok) options.logger.info('webhook proxy: delivery replayed', fields);
    else quiet.warn('webhook proxy: delivery replayed and refused', fields, `HTTP ${answer.status}`);
    options.onReplay?.(delivery, answer.status);
  } catch (e) {
    if (options.signal.aborted) return;
    quiet.warn('webhook proxy: replay failed', { path: delivery.path, event, deliveryId, error: e }, 'replay failed');
  }
}

/** Reads one stream until it ends, fails or falls silent; resolves when it is over. */
async function readStream(options: WebhookProxyOptions, quiet: QuietLog, fetchImpl: typeof fetch, onOpen: () => void): Promise<void> {
  const idle = new AbortController();
  const signal = AbortSignal.any([options.signal, idle.signal]);
  const idleMs = options.idleMs ?? 75_000;
  let timer = setTimeout(() => idle.abort(), idleMs);
  try {
    // A relay never redirects its stream; following one could reach anything (an instance's metadata address).
    const res = await fetchImpl(options.source, { headers: { accept: 'text/event-stream' }, signal, redirect: 'manual' });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new Error(`the relay answered ${res.status}, a redirect, which is not followed`);
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Error(`the relay answered ${res.status}`);
    }
    onOpen();
    const parse = sseParser({
      onOversized: (chars) =>
        quiet.warn('webhook proxy: message skipped', { reason: `larger than the intake takes (over ${chars} characters)` }, 'too large'),
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), idleMs);
      for (const ev of parse(decoder.decode(chunk, { stream: true }))) {
        if (ev.event !== 'message') continue;
        const delivery = relayedDelivery(ev.data);
        if ('skip' in delivery) {
          quiet.warn('webhook proxy: message skipped', { reason: delivery.skip, deliveryId: delivery.deliveryId }, delivery.skip);
          continue;
        }
        await replay(options, quiet, fetchImpl, delivery);
        if (options.signal.aborted) return;
      }
    }
  } catch (e) {
    if (idle.signal.aborted && !options.signal.aborted) throw new Error(`the relay sent nothing for ${idleMs} ms`);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `WEBHOOK_PROXY_URL`: real deliveries to a laptop, as Probot does. Reads the relay's event
 * stream (a hand-written SSE client over fetch) and replays each delivery unchanged, headers
 * and bytes, into this runtime's intake, where the signature is checked as for any delivery.
 * Reconnects until `signal` aborts, trying again at least every `maxRetryMs`. The relay
 * answers the code host 2xx whether anyone listens or not, so what it relays while the
 * reader is away is lost here; the redelivery sweep asks the code host for those again
 * (shared/sweep/sweep-once.ts), and the line on reconnecting says how long the reader was away.
 */
export async function runWebhookProxy(options: WebhookProxyOptions): Promise<void> {
  const fetchImpl = options.fetch ?? fetch;
  const base = options.retryMs ?? 1000;
  const cap = options.maxRetryMs ?? 5000;
  const quiet = new QuietLog(options.logger, options.quietWindowMs ?? 60_000);
  let wait = base;
  /** When the reader lost the relay (epoch ms); none before the first connection. */
  let lostAt: number | undefined;
  try {
    while (!options.signal.aborted) {
      try {
        await readStream(options, quiet, fetchImpl, () => {
          wait = base;
          options.logger.info('webhook proxy connected', {
            source: options.source,
            ...(lostAt !== undefined ? { awayMs: Date.now() - lostAt } : {}),
          });
          lostAt = undefined;
          options.onListening?.(true);
        });
        options.onListening?.(false);
        if (options.signal.aborted) return;
        lostAt ??= Date.now();
        options.logger.warn('webhook proxy: stream ended; reconnecting', { source: options.source, retryInMs: wait });
      } catch (e) {
        options.onListening?.(false);
        if (options.signal.aborted) return;
        lostAt ??= Date.now();
        options.logger.warn('webhook proxy: stream failed; reconnecting', { source: options.source, retryInMs: wait, error: e });
      }
      await pause(wait, options.signal);
      wait = Math.min(wait * 2, cap);
    }
  } finally {
    quiet.flush();
  }
}
