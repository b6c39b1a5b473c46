import type { Store } from '../../../ports';
import { keys } from '../../../store/table-design';

/** Where a polled subscription stands: the last ETag and what it has already seen. */
export interface PollCursor {
  etag?: string;
  /** Items created before this (ISO time, the code host's clock) are never announced. */
  since: string;
  /** Ids already seen at or after `since` (bounded). */
  seen: string[];
  updatedAt: string;
}

export const maxSeen = 500;

export async function readCursor(store: Store, subscriptionId: string): Promise<PollCursor | undefined> {
  const item = await store.get<{ pk: string; sk: string } & PollCursor>(keys.pollCursor(subscriptionId));
  if (!item) return undefined;
  return { etag: item.etag, since: item.since, seen: item.seen ?? [], updatedAt: item.updatedAt };
}

export async function writeCursor(store: Store, subscriptionId: string, cursor: PollCursor): Promise<void> {
  await store.put({ ...keys.pollCursor(subscriptionId), ...cursor, seen: cursor.seen.slice(-maxSeen) });
}
