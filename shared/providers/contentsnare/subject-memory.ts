import { levelsOf, markOf, observe, subjectKey, type SnareReadBack, type SubjectMemory } from './mapping/snare-events';
import type { SnareTriggerName } from '../../domain/triggers';
import type { Clock, Store } from '../../ports';
import { keys, ttlIn } from '../../store/table-design';
import { leaveRow, versionedUpdate, writeRow } from '../../store/versioned-update';

/**
 * What was last seen of each collection-service record, per connection: one row per record
 * with its triggers' levels and episode counts (shared/providers/contentsnare/mapping/snare-events.ts),
 * changed only by a versioned conditional write, so two observations at once (a burst of
 * copies, the intake and the recovery check) agree on one episode. The row is written
 * before the claim of the episode is taken: an attempt that dies after it leaves the episode
 * unclaimed, and the next copy (or the recovery check) finds the same episode and announces it.
 */

/** Long enough to outlive any redelivery; a record unseen for this long starts afresh. */
const memoryTtlSeconds = 90 * 24 * 3600;
const attempts = 5;

interface MemoryItem {
  pk: string;
  sk: string;
  memory: SubjectMemory;
  version: number;
  ttl: number;
}

export type Episodes = ReturnType<typeof observe>['episodes'];

export async function recordObservation(
  ctx: { store: Store; clock: Clock },
  connectionId: string,
  rb: SnareReadBack,
  delivered: SnareTriggerName | undefined,
): Promise<Episodes> {
  const key = keys.snareSubject(connectionId, subjectKey(rb));
  return versionedUpdate(
    ctx.store,
    () => ctx.store.get<MemoryItem>(key, { consistent: true }),
    (item) => {
      const memory = item?.memory ?? {};
      const { next, episodes } = observe(
        memory,
        levelsOf(rb, delivered, memory),
        delivered ? { trigger: delivered, mark: markOf(rb) } : undefined,
      );
      const changed = JSON.stringify(next) !== JSON.stringify(memory);
      if (!changed && item) return leaveRow(episodes);
      return writeRow({ ...key, memory: next, ttl: ttlIn(ctx.clock.now(), memoryTtlSeconds) }, episodes);
    },
    { key, attempts },
  );
}
