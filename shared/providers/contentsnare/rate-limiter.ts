import { AppError } from '../../domain/errors';
import { noMetrics, type Metrics } from '../../observability/metrics';
import { realSleep, type Clock, type Sleep, type Store } from '../../ports';

export { realSleep, type Sleep };
import { KeyedBatcher } from './keyed-batcher';
import { maxHonouredRetryAfterMs } from './retry-after';
import { RateBucketStore } from './rate-bucket';
import { earliestSlot, withGrant, type WindowPolicy } from './sliding-window';

export type RateKind = 'read' | 'write';
export interface RateLimiterOptions {
  store: Store;
  clock: Clock;
  /** Longest a call may wait for capacity before answering `rate_limited`. */
  maxWaitMs: number;
  sleep?: Sleep;
  random?: () => number;
  metrics?: Metrics;
  /** The service's window and limits: 10 s, 50 reads, 20 writes. Smaller in tests. */
  windowMs?: number;
  reads?: number;
  writes?: number;
  /** Extra spacing per window for latency jitter between slot and arrival (default 500 ms). */
  marginMs?: number;
  /**
   * A caller ready to send later than this after its slot takes a fresh slot, at most
   * twice, then sends anyway (default 200 ms; keep it below the margin).
   */
  lateToleranceMs?: number;
}

/**
 * The collection service's limits per connected account, held across every worker:
 * one item per (connection, kind) in the table, changed only by conditional writes
 * (optimistic concurrency on `version`). Calls reserve a send time (see sliding-window.ts)
 * and sleep until it; when that is further away than `maxWaitMs` they answer
 * `rate_limited` with `retryAfter` at once instead of waiting in vain.
 * Accounts are independent items: one account's backlog never slows another.
 * Clock skew between workers eats into the margin: keep hosts NTP-synced (Lambda is).
 */
export class ContentSnareRateLimiter {
  private readonly blockReads = new Map<string, Promise<number>>();
  private readonly batcher: KeyedBatcher<{ kind: RateKind; deadline: number }, number>;
  private readonly buckets: RateBucketStore;
  private readonly sleep: Sleep;
  private readonly metrics: Metrics;
  private readonly policies: Record<RateKind, WindowPolicy>;
  private readonly lateToleranceMs: number;

  constructor(private readonly options: RateLimiterOptions) {
    this.sleep = options.sleep ?? realSleep;
    this.metrics = options.metrics ?? noMetrics;
    this.buckets = new RateBucketStore(options.store, options.clock, this.sleep, options.random ?? Math.random, this.metrics);
    const windowMs = options.windowMs ?? 10_000;
    const marginMs = options.marginMs ?? 500;
    this.policies = {
      read: { limit: options.reads ?? 50, windowMs, marginMs },
      write: { limit: options.writes ?? 20, windowMs, marginMs },
    };
    this.lateToleranceMs = options.lateToleranceMs ?? 200;
    this.batcher = new KeyedBatcher((name, batch) => this.reserve(name, batch));
  }

  /** Waits until a call of `kind` may be sent for this connection; throws `rate_limited` past the bound. */
  async acquire(connectionId: string, kind: RateKind): Promise<void> {
    const { clock } = this.options;
    const deadline = clock.now() + this.options.maxWaitMs;
    const bucket = `${connectionId}#${kind}`;
    for (let late = 0; ; ) {
      const slot = await this.batcher.submit(bucket, { kind, deadline });
      let slept = false;
      while (clock.now() < slot) {
        slept = true;
        await this.sleep(slot - clock.now());
      }
      if (slept) {
        // A 429 seen by another worker while we slept blocks the account: honour it.
        const blockedUntil = await this.blockedUntil(bucket);
        if (blockedUntil > clock.now()) {
          this.metrics.count('contentsnare_rate_limit_reblocked');
          continue;
        }
      }
      if (clock.now() - slot > this.lateToleranceMs && late < 2) {
        // Sending this late could squeeze the next window's slot; our slot stays spent
        // (conservative). Bounded, so a slow table cannot livelock us: past that, a rare
        // 429 is handled by the client (block, wait, retry).
        late++;
        this.metrics.count('contentsnare_rate_limit_late');
        continue;
      }
      return;
    }
  }

  /** Records that the service asked this account to wait until `untilMs` (a 429): every worker waits. */
  async block(connectionId: string, requestedUntilMs: number): Promise<void> {
    // Never stored further than the cap: the row outlives restarts and reconnects.
    const untilMs = Math.min(requestedUntilMs, this.options.clock.now() + maxHonouredRetryAfterMs);
    for (const kind of ['read', 'write'] as const) {
      await this.buckets.update(`${connectionId}#${kind}`, this.policies[kind], (state) =>
        (state.blockedUntil ?? 0) >= untilMs ? undefined : { ...state, blockedUntil: untilMs },
      );
    }
  }

  /** Reserves one slot per waiting caller of one bucket, in queue order, with one conditional write. */
  private async reserve(bucket: string, batch: Array<{ kind: RateKind; deadline: number }>): Promise<Array<number | Error>> {
    const kind = batch[0]?.kind ?? 'write';
    const policy = this.policies[kind];
    let results: Array<number | Error> = [];
    const deadline = Math.max(...batch.map((b) => b.deadline));
    await this.buckets.update(
      bucket,
      policy,
      (state, now) => {
        results = [];
        let next = state;
        for (const { deadline } of batch) {
          const slot = earliestSlot(next, now, policy);
          if (slot > deadline) {
            results.push(rateLimited(slot - now));
            continue;
          }
          next = withGrant(next, slot, policy);
          results.push(slot);
        }
        return next === state ? undefined : next;
      },
      deadline,
      () => rateLimited(1000),
    );
    return results;
  }

  /** The bucket's block, read once for all callers of this process waking together (single flight). */
  private blockedUntil(bucket: string): Promise<number> {
    let pending = this.blockReads.get(bucket);
    if (!pending) {
      pending = this.buckets
        .read(bucket)
        .then((s) => Math.min(s?.state.blockedUntil ?? 0, this.options.clock.now() + maxHonouredRetryAfterMs))
        .finally(() => this.blockReads.delete(bucket));
      this.blockReads.set(bucket, pending);
    }
    return pending;
  }
}

function rateLimited(waitMs: number): AppError {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError(
    'rate_limited',
    `The collection service's rate limit for this account needs a wait of about ${retryAfter} s, longer than allowed`,
    {
      retryAfter,
    },
  );
}
