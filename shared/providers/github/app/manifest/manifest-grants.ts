import { join } from 'node:path';
import { permissionsForEvent } from '../../../../domain/app-permissions';
import type { SubscriptionTarget } from '../../../../domain/model';
import { hookPermissionNames, mergeGrants, type Grant } from '../../../../domain/trigger-permissions';
import { githubTriggerIds } from '../../../../domain/triggers';
import { githubTools } from '../../tools';
import { githubTriggers } from '../../triggers/catalog';

/**
 * What the GitHub App's manifest asks for, from what the tool steps and triggers declare (the
 * declarations the guide's permission tables come from). `npm run guides` writes it into
 * `manifest-grants.json`, which the manifest flow reads, so the function that builds the
 * manifest does not carry every step.
 */

const targets: SubscriptionTarget[] = [
  { kind: 'repository', repository: 'owner/name' },
  { kind: 'organization', organization: 'org' },
  { kind: 'account' },
];

/** What a trigger reads on any target, less the hook a token's subscription registers (an App has its webhook). */
function triggerReads(): Grant[] {
  return githubTriggerIds.flatMap((id) =>
    targets.flatMap((target) => {
      const grant = githubTriggers[id].permissions(target);
      if (!grant) return [];
      const fineGrained = Object.fromEntries(Object.entries(grant.fineGrained).filter(([name]) => !hookPermissionNames.has(name)));
      return [{ fineGrained, oauthScopes: [] }];
    }),
  );
}

/** The webhook events the triggers are served by, sorted. */
export function appManifestEvents(): string[] {
  return [...new Set(githubTriggerIds.flatMap((id) => githubTriggers[id].events))].sort();
}

/**
 * Every permission a tool step or a trigger declares (at the higher level where both name it),
 * and, for each event the App subscribes to, the permission GitHub delivers it under (read), when
 * none of the ones it accepts is there already.
 */
export function appManifestPermissions(): Record<string, 'read' | 'write'> {
  const declared = mergeGrants(
    ...githubTools.steps.map((step) => ({ fineGrained: step.permissions.fineGrained ?? {}, oauthScopes: [] })),
    ...triggerReads(),
  ).fineGrained;
  for (const event of appManifestEvents()) {
    const accepted = permissionsForEvent(event);
    const first = accepted[0];
    if (first !== undefined && !accepted.some((p) => declared[p] !== undefined)) declared[first] = 'read';
  }
  // Granted to every App whatever the manifest says; named so the page GitHub shows lists it.
  declared.metadata ??= 'read';
  return Object.fromEntries(Object.entries(declared).sort(([a], [b]) => a.localeCompare(b)));
}

/** The file the manifest flow reads (shared/providers/github/app/manifest/app-manifest.ts). */
export const manifestGrantsPath = join(import.meta.dirname, 'manifest-grants.json');

/** The grants file as it should be on disk. */
export function currentManifestGrants(): string {
  return `${JSON.stringify({ default_permissions: appManifestPermissions(), default_events: appManifestEvents() }, null, 2)}\n`;
}
