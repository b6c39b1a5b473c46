import * as z from 'zod';
import { baseEvent, baseFacts, occurrence, parse, type MapperTable } from './mapper';
import { envelopeSchema, repositorySchema } from './schemas';

/**
 * Repository family: new repository (organization hooks), fork, star.
 * Trap: the code host sends `watch`/`started` when someone STARS (the old name of starring),
 * beside `star`/`created` for the same star; there is no webhook for watching. So a star is
 * new_star from `star`/`created` only (always sent for a star, and it carries `starred_at`),
 * and `watch`/`started` is ignored: a star announced once. new_watcher (someone starts
 * WATCHING) is polled from the repository's subscribers (shared/providers/github/polling/poll-watchers.ts).
 */

const created = envelopeSchema.extend({
  repository: repositorySchema.extend({ description: z.string().nullish(), created_at: z.unknown().optional() }),
});
const fork = envelopeSchema.extend({ forkee: repositorySchema });
const star = envelopeSchema.extend({ starred_at: z.string().nullish() });

export const repositoryMappers: MapperTable = {
  'repository.created': [
    (payload) => {
      const p = parse(created, payload);
      if (!p) return [];
      // Same key as the poller's, so a repository seen both ways is announced once.
      const key = p.repository.id != null ? `repository:${p.repository.id}` : 'delivery';
      return [occurrence('new_repository', baseEvent(p), baseFacts(p), key)];
    },
  ],
  fork: [
    (payload) => {
      const p = parse(fork, payload);
      return p ? [occurrence('new_fork', { ...baseEvent(p), forkee: p.forkee }, baseFacts(p))] : [];
    },
  ],
  'star.created': [
    (payload) => {
      const p = parse(star, payload);
      return p ? [occurrence('new_star', { ...baseEvent(p), starred_at: p.starred_at }, baseFacts(p))] : [];
    },
  ],
};
