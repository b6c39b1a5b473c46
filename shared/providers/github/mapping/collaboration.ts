import * as z from 'zod';
import { baseEvent, baseFacts, compact, occurrence, parse, type MapperTable } from './mapper';
import { envelopeSchema, userSchema } from './schemas';

/**
 * Collaboration family: a collaborator added to a repository (`member`/`added`).
 * `role` is `changes.role_name.to` (the full role name, custom roles included); the legacy
 * `changes.permission.to` (maintain shown as write, triage as read) only when it is absent.
 */

const member = envelopeSchema.extend({
  member: userSchema,
  changes: z
    .object({ permission: z.object({ to: z.string().nullish() }).nullish(), role_name: z.object({ to: z.string().nullish() }).nullish() })
    .nullish(),
});

export const collaborationMappers: MapperTable = {
  'member.added': [
    (payload) => {
      const p = parse(member, payload);
      if (!p) return [];
      const permission = p.changes?.permission?.to ?? undefined;
      const role = p.changes?.role_name?.to ?? permission;
      return [occurrence('new_collaborator', compact({ ...baseEvent(p), member: p.member, role, permission }), baseFacts(p))];
    },
  ],
};
