import { AppError, ConditionFailedError } from '../domain/errors';
import type { Key, PutOptions, Store } from '../ports';

/**
 * The one read-modify-write of a row under optimistic concurrency: read it, apply a pure
 * change, write the result only if nobody wrote in between (a conditional put on its
 * `version`, or on its absence for a first write), and on a lost race read again and retry,
 * a bounded number of times. There are no transactions (ports/index.ts), so every row that
 * several workers change (connections, endpoints, scoped keys, rate buckets, replay ledgers,
 * what was last seen of a collection-service record) changes through here.
 */

/** What a change decided: a row to write (its `version` is set here), or nothing to write. */
export type VersionedChange<T> = { write: Key & object; value: T } | { value: T };

/** Writes `row` as the change's result: `value` is what the update answers. */
export const writeRow = <T, R extends Key>(row: R, value: T): VersionedChange<T> => ({ write: row, value });
/** Nothing to write (absent, or already as wanted): the update answers `value` at once. */
export const leaveRow = <T>(value: T): VersionedChange<T> => ({ value });

/** The race for a row was lost `attempts` times in a row: others keep changing it; the caller may try again later. */
export class VersionRaceLostError extends AppError {
  constructor(key: Key, attempts: number) {
    super('unavailable', `${key.pk} was changed by another writer ${attempts} times in a row; try again`, { retryAfter: 1 });
    this.name = 'VersionRaceLostError';
  }
}

export interface VersionedUpdateOptions {
  /** The row, for the error when the race is lost for good. */
  key: Key;
  /** Writes tried at most (the first included). */
  attempts: number;
  /** Told of each lost race (1 for the first), before the next try; may throw to stop (a deadline passed). */
  onLostRace?: (lost: number) => void;
  /** Awaited between a lost race and the next read (a jittered pause). */
  pause?: (lost: number) => Promise<void>;
  /** The error when the race is lost `attempts` times; `VersionRaceLostError` by default. */
  lostForGood?: () => Error;
}

/** The row as read: its `version`, absent on rows from before the row had one. */
export interface Versioned {
  version?: number;
}

/**
 * Reads with `read`, applies `change` (pure: it may run once per try) and writes what it
 * decided, conditioned on the version read: absent row, `ifNotExists`; a row without a
 * version (written before it had one), `ifExists`; otherwise `ifVersion`. The written row's
 * `version` is the one read plus one. Answers the change's value once written (or when it
 * decided to write nothing); throws `lostForGood` (or `VersionRaceLostError`) after
 * `attempts` lost races. Any other failure, or a throw of `change`, is passed on at once.
 */
export async function versionedUpdate<R extends Versioned, T>(
  store: Store,
  read: () => Promise<R | undefined>,
  change: (current: R | undefined) => VersionedChange<T>,
  options: VersionedUpdateOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const current = await read();
    const decided = change(current);
    if (!('write' in decided)) return decided.value;
    try {
      await store.put({ ...decided.write, version: (current?.version ?? 0) + 1 }, conditionOn(current));
      return decided.value;
    } catch (e) {
      if (!(e instanceof ConditionFailedError)) throw e;
    }
    options.onLostRace?.(attempt);
    if (attempt >= options.attempts) throw options.lostForGood?.() ?? new VersionRaceLostError(options.key, attempt);
    await options.pause?.(attempt);
  }
}

function conditionOn(current: Versioned | undefined): PutOptions {
  if (current === undefined) return { ifNotExists: true };
  if (current.version === undefined) return { ifExists: true };
  return { ifVersion: current.version };
}
