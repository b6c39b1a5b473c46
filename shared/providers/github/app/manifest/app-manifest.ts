import { permissionsForEvent } from '../../../../domain/app-permissions';
import { triggerCatalog } from '../../../../domain/trigger-catalog';
import { hookPermissionNames, mergeGrants, type Grant } from '../../../../domain/trigger-permissions';
import { githubTriggerIds } from '../../../../domain/triggers';
import type { SubscriptionTarget } from '../../../../domain/model';
import { githubTools } from '../../tools';

/**
 * The manifest of GitHub's App manifest flow ("Registering a GitHub App from a manifest"): the
 * App is made with what the product's steps and triggers declare they need, the same
 * declarations the permission guide's tables are generated from.
 */
export interface AppManifest {
  name: string;
  url: string;
  hook_attributes: { url: string; active: boolean };
  redirect_url: string;
  callback_urls: string[];
  request_oauth_on_install: boolean;
  setup_on_update: boolean;
  public: boolean;
  default_permissions: Record<string, 'read' | 'write'>;
  default_events: string[];
}

const targets: SubscriptionTarget[] = [
  { kind: 'repository', repository: 'owner/name' },
  { kind: 'organization', organization: 'org' },
  { kind: 'account' },
];

/** What a trigger reads on any target, less the hook a token's subscription registers (an App has its webhook). */
function triggerReads(): Grant[] {
  return githubTriggerIds.flatMap((id) =>
    targets.flatMap((target) => {
      const grant = triggerCatalog[id].permissions(target);
      if (!grant) return [];
      const fineGrained = Object.fromEntries(Object.entries(grant.fineGrained).filter(([name]) => !hookPermissionNames.has(name)));
      return [{ fineGrained, oauthScopes: [] }];
    }),
  );
}

/** The webhook events the triggers are served by, sorted. */
export function appManifestEvents(): string[] {
  return [...new Set(githubTriggerIds.flatMap((id) => triggerCatalog[id].events))].sort();
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

/** The routes GitHub is told about: the App's webhook, its user authorization's callback, and the manifest flow's return. */
export function appManifest(input: { publicUrl: string; name: string }): AppManifest {
  const base = input.publicUrl;
  return {
    name: input.name,
    url: base,
    hook_attributes: { url: `${base}/webhooks/github/app`, active: true },
    redirect_url: `${base}/github-app/manifest/callback`,
    // The install flow's return (app-callback.ts), with the user's authorization asked during installation.
    callback_urls: [`${base}/oauth/github-app/callback`],
    request_oauth_on_install: true,
    setup_on_update: false,
    public: false,
    default_permissions: appManifestPermissions(),
    default_events: appManifestEvents(),
  };
}
