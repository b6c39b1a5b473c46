import * as z from 'zod';
import { baseEvent, baseFacts, occurrence, parse, type MapperTable } from './mapper';
import { envelopeSchema, repositorySchema } from './schemas';

/**
 * Repository family: new repository (organization hooks), fork, star, watcher.
 * Trap: the code host sends `watch`/`started` when someone STARS (the old name of starring);
 * we announce it as new_watcher, and `star`/`created` as new_star, never one for the other.
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
  'watch.started': [
    (payload) => {
      const p = parse(envelopeSchema, payload);
      return p ? [occurrence('new_watcher', baseEvent(p), baseFacts(p))] : [];
    },
  ],
};
