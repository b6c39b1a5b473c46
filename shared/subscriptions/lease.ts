import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app/context';
import { AppError, ConditionFailedError } from '../domain/errors';
import { keys, ttlIn } from '../store/table-design';

export interface LeaseOptions {
  /** How long the lease holds if its holder dies (seconds). */
  ttlSeconds?: number;
  /** How many times to try before answering `conflict`. */
  attempts?: number;
  waitMs?: number;
}

/**
 * Runs `fn` while holding a named lease (a conditional put with a TTL), so the changes to
 * one webhook endpoint (create/adopt the hook, widen or shrink its events, delete it) never
 * interleave. There are no transactions: this keeps each endpoint's steps in one line.
 */
export async function withLease<T>(ctx: Pick<AppContext, 'store' | 'clock'>, name: string, fn: () => Promise<T>, options: LeaseOptions = {}): Promise<T> {
  const key = keys.lease(name);
  const attempts = options.attempts ?? 60;
  const holder = randomUUID();
  for (let i = 0; ; i++) {
    try {
      await ctx.store.put({ ...key, holder, ttl: ttlIn(ctx.clock.now(), options.ttlSeconds ?? 30) }, { ifNotExists: true });
      break;
    } catch (e) {
      if (!(e instanceof ConditionFailedError)) throw e;
      if (i + 1 >= attempts) throw new AppError('conflict', `Another change to ${name} is in progress; try again`);
      await new Promise((r) => setTimeout(r, options.waitMs ?? 100));
    }
  }
  try {
    return await fn();
  } finally {
    await ctx.store.delete(key).catch(() => undefined);
  }
}
