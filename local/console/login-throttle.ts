import type { Logger } from '../../shared/observability/logger';
import type { Clock } from '../../shared/ports';

/**
 * Throttles guessing of the platform key at the console's sign-in (docs/security.md "The
 * console"). Per client address: the first `freeAttempts` attempts go through at once; from
 * the last of them on, each attempt blocks the client for twice as long as the one before
 * (1 s, 2 s, 4 s ... at most `maxDelayMs`) and, while blocked, its attempts are answered at once without comparing the
 * key. An attempt counts as a failure from the moment it starts (a burst sent all at once is
 * throttled as well as one sent in turn); a sign-in that succeeds clears the client.
 *
 * Logging is per window, for all clients together, so guessing cannot flood the log: the
 * first refusal of a window is written at once, the rest are counted and written as one
 * summary line when the next refusal (or sign-in) after the window comes.
 */
export interface LoginThrottleOptions {
  freeAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The log window. */
  windowMs?: number;
  /** Clients tracked at once (oldest forgotten first), so the table cannot grow without bound. */
  maxClients?: number;
}

interface ClientState {
  attempts: number;
  blockedUntil: number;
  lastAttemptAt: number;
}

interface LogWindow {
  startedAt: number;
  refused: number;
  wrongKeys: number;
  throttled: number;
  clients: Set<string>;
}

const maxClientsInSummary = 100;

export class LoginThrottle {
  private readonly clients = new Map<string, ClientState>();
  private window: LogWindow | undefined;
  private readonly o: Required<LoginThrottleOptions>;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: LoginThrottleOptions = {},
  ) {
    this.o = {
      freeAttempts: options.freeAttempts ?? 5,
      baseDelayMs: options.baseDelayMs ?? 1000,
      maxDelayMs: options.maxDelayMs ?? 5 * 60 * 1000,
      windowMs: options.windowMs ?? 60 * 1000,
      maxClients: options.maxClients ?? 1000,
    };
  }

  /**
   * Starts an attempt of `client`: the milliseconds it must wait first (the attempt is then
   * refused, uncompared), or 0 when it may go on; then `succeeded` or `failed` ends it.
   */
  begin(client: string): number {
    const now = this.clock.now();
    const state = this.stateOf(client, now);
    if (state.blockedUntil > now) {
      this.noteRefusal(client, 'throttled');
      return state.blockedUntil - now;
    }
    state.attempts++;
    state.lastAttemptAt = now;
    // The last free attempt already blocks the next one: a burst gets `freeAttempts` compared, no more.
    const over = state.attempts - this.o.freeAttempts + 1;
    if (over > 0) state.blockedUntil = now + Math.min(this.o.maxDelayMs, this.o.baseDelayMs * 2 ** Math.min(over - 1, 30));
    return 0;
  }

  succeeded(client: string): void {
    this.clients.delete(client);
    this.closeWindowIfOver(this.clock.now());
  }

  failed(client: string): void {
    this.noteRefusal(client, 'wrong_key');
  }

  private stateOf(client: string, now: number): ClientState {
    let state = this.clients.get(client);
    // A client quiet for longer than the longest block starts afresh.
    if (state && state.blockedUntil <= now && now - state.lastAttemptAt > this.o.maxDelayMs) state = undefined;
    if (!state) {
      state = { attempts: 0, blockedUntil: 0, lastAttemptAt: now };
      this.clients.delete(client);
      this.clients.set(client, state);
      while (this.clients.size > this.o.maxClients) this.clients.delete(this.clients.keys().next().value as string);
    }
    return state;
  }

  private noteRefusal(client: string, kind: 'wrong_key' | 'throttled'): void {
    const now = this.clock.now();
    this.closeWindowIfOver(now);
    if (!this.window) {
      this.window = { startedAt: now, refused: 0, wrongKeys: 0, throttled: 0, clients: new Set() };
      this.logger.warn('console sign-in refused', {
        reason: kind,
        client,
        note: 'further refusals within the minute are summarised in one line',
      });
    }
    const w = this.window;
    w.refused++;
    if (kind === 'wrong_key') w.wrongKeys++;
    else w.throttled++;
    if (w.clients.size < maxClientsInSummary) w.clients.add(client);
  }

  private closeWindowIfOver(now: number): void {
    const w = this.window;
    if (!w || now - w.startedAt < this.o.windowMs) return;
    this.window = undefined;
    if (w.refused <= 1) return;
    this.logger.warn('console sign-in refusals summarised', {
      since: new Date(w.startedAt).toISOString(),
      refused: w.refused,
      wrongKeys: w.wrongKeys,
      throttled: w.throttled,
      clients: [...w.clients],
    });
  }
}
