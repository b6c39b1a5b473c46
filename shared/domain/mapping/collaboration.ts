import * as z from 'zod';
import { baseEvent, baseFacts, occurrence, parse, type MapperTable } from './mapper';
import { envelopeSchema, userSchema } from './schemas';

/** Collaboration family: a collaborator added to a repository (`member`/`added`). */

const member = envelopeSchema.extend({
  member: userSchema,
  changes: z.object({ permission: z.object({ to: z.string().nullish() }).nullish() }).nullish(),
});

export const collaborationMappers: MapperTable = {
  'member.added': [
    (payload) => {
      const p = parse(member, payload);
      if (!p) return [];
      const permission = p.changes?.permission?.to ?? undefined;
      return [occurrence('new_collaborator', { ...baseEvent(p), member: p.member, ...(permission ? { permission } : {}) }, baseFacts(p))];
    },
  ],
};
