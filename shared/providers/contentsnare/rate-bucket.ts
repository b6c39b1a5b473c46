import * as z from 'zod';
import { AppError } from '../../domain/errors';
import type { Metrics } from '../../observability/metrics';
import type { Clock, Store } from '../../ports';
import { keys, ttlIn } from '../../store/table-design';
import { leaveRow, versionedUpdate, writeRow } from '../../store/versioned-update';
import { expiresAt, type BucketState, type WindowPolicy } from './sliding-window';

/** Conditional-write attempts on one bucket before giving up (a stuck or foreign item). */
const maxAttempts = 200;

const itemSchema = z.object({
  version: z.number().int(),
  grants: z.array(z.number()).catch([]),
  blockedUntil: z.number().optional().catch(undefined),
});

/**
 * One rate bucket's item in the table (`keys.rateBucket(name)`): read, and changed by a
 * read-modify-write conditioned on `version` (or on absence, for the first write), so
 * concurrent workers never lose each other's grants. The item expires a window after its
 * last grant or block.
 */
export class RateBucketStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly random: () => number,
    private readonly metrics: Metrics,
  ) {}

  async read(name: string): Promise<{ version: number; state: BucketState } | undefined> {
    const item = await this.store.get(keys.rateBucket(name), { consistent: true });
    if (!item) return undefined;
    const parsed = itemSchema.safeParse(item);
    if (!parsed.success) return { version: typeof item.version === 'number' ? item.version : -1, state: { grants: [] } };
    const { version, grants, blockedUntil } = parsed.data;
    const sorted = [...grants].sort((a, b) => a - b);
    return { version, state: blockedUntil === undefined ? { grants: sorted } : { grants: sorted, blockedUntil } };
  }

  /**
   * Applies `change` (undefined = nothing to write) and writes the result if nobody wrote in
   * between; otherwise re-reads and tries again after a jittered pause. `onTooLate` is thrown
   * when a lost race pushes us past `deadline`.
   */
  async update(
    name: string,
    policy: WindowPolicy,
    change: (state: BucketState, now: number) => BucketState | undefined,
    deadline = Number.POSITIVE_INFINITY,
    onTooLate: () => Error = () => new AppError('rate_limited', 'The rate-limit record of this account is busy', { retryAfter: 1 }),
  ): Promise<void> {
    const key = keys.rateBucket(name);
    await versionedUpdate(
      this.store,
      () => this.read(name),
      (current) => {
        const next = change(current?.state ?? { grants: [] }, this.clock.now());
        return next ? writeRow({ ...key, ...next, ttl: ttlIn(expiresAt(next, policy), 60) }, undefined) : leaveRow(undefined);
      },
      {
        key,
        attempts: maxAttempts,
        onLostRace: () => {
          this.metrics.count('contentsnare_rate_limit_conflict');
          if (this.clock.now() > deadline) throw onTooLate();
        },
        pause: (lost) => this.sleep(Math.ceil(this.random() * Math.min(50, 5 * lost))),
        lostForGood: () => new AppError('unavailable', 'The rate-limit record of this account is too contended; try again'),
      },
    );
  }
}
