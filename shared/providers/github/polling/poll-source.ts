import { mapPolledGist, mapPolledRepository } from '../mapping/map-polled';
import type { MappedEvent } from '../../../domain/mapping/types';
import type { Subscription } from '../../../domain/model';
import { orgPath } from '../webhooks/rest-call';

/** Where a polled subscription looks for new items, and how to read them. */
export interface PollSource {
  /** Path (with query) under the REST base; newest first where the code host allows. */
  path: string;
  map(item: Record<string, unknown>): MappedEvent | undefined;
}

/** Triggers the poller serves. */
export const polledTriggers = ['github.new_gist', 'github.new_repository', 'github.new_watcher'] as const;

function one(value: MappedEvent | MappedEvent[] | undefined): MappedEvent | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function pollSourceFor(sub: Subscription): PollSource | undefined {
  if (sub.trigger === 'github.new_gist') {
    return { path: '/gists?per_page=100', map: (item) => one(mapPolledGist(item as never)) };
  }
  if (sub.trigger === 'github.new_repository') {
    const path =
      sub.organization !== undefined
        ? `${orgPath(sub.organization)}/repos?sort=created&direction=desc&per_page=100`
        : '/user/repos?affiliation=owner&sort=created&direction=desc&per_page=100';
    return { path, map: (item) => one(mapPolledRepository(item as never)) };
  }
  return undefined;
}

/** An item's id and creation time, read defensively (polled answers are outside input). */
export function itemIdentity(item: Record<string, unknown>): { id: string; createdAt: string } | undefined {
  const id = item.id;
  const createdAt = item.created_at;
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof createdAt !== 'string') return undefined;
  return { id: String(id), createdAt };
}

/**
 * The key of a shared source: one connection's list at one path. Subscriptions with the
 * same key see the same answer, so the poller asks once for all of them.
 */
export function sourceKeyFor(connectionId: string, path: string): string {
  return `${connectionId}#${path}`;
}
