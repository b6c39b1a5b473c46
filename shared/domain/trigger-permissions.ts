import type { TriggerSource } from './mapping/types';
import type { SubscriptionTarget } from './model';
import type { TriggerName } from './triggers';

/**
 * What a token must be granted for something to work: fine-grained token / GitHub App
 * permissions by their API names (`contents`, `repository_hooks` ...), and the classic OAuth
 * scopes that give the same. Every entry is needed.
 */
export interface Grant {
  fineGrained: Record<string, 'read' | 'write'>;
  oauthScopes: string[];
}

/**
 * What each trigger reads from the code host besides the webhook's own payload: the lists
 * a polled trigger reads, and the follow-up reads of webhook triggers (a push's commits
 * beyond the payload, a project's columns). Declared once: the guide's permission table and
 * `npm run doctor` read it through the catalog. `repo` stands for private repositories.
 */
const reads: Record<TriggerName, Grant & { on?: ReadonlyArray<SubscriptionTarget['kind']> }> = {
  // A user account's repositories are polled (GET /user/repos); an organization's come by hook.
  new_repository: { fineGrained: { metadata: 'read' }, oauthScopes: ['repo'], on: ['account'] },
  new_fork: { fineGrained: {}, oauthScopes: [] },
  new_star: { fineGrained: {}, oauthScopes: [] },
  // GET /repos/{o}/{r}/subscribers
  new_watcher: { fineGrained: { metadata: 'read' }, oauthScopes: ['repo'] },
  // GET /repos/{o}/{r}/tags, beside the hook: repositories only.
  new_tag: { fineGrained: { metadata: 'read' }, oauthScopes: ['repo'], on: ['repository'] },
  new_issue: { fineGrained: {}, oauthScopes: [] },
  updated_issue: { fineGrained: {}, oauthScopes: [] },
  new_pull_request: { fineGrained: {}, oauthScopes: [] },
  updated_pull_request: { fineGrained: {}, oauthScopes: [] },
  new_comment: { fineGrained: {}, oauthScopes: [] },
  new_label_on_issue: { fineGrained: {}, oauthScopes: [] },
  new_review_request: { fineGrained: {}, oauthScopes: [] },
  new_pull_request_review: { fineGrained: {}, oauthScopes: [] },
  // A push of more than 20 commits: GET /repos/{o}/{r}/compare/{base}...{head} for the rest.
  new_commit: { fineGrained: { contents: 'read' }, oauthScopes: ['repo'] },
  new_push: { fineGrained: {}, oauthScopes: [] },
  new_branch: { fineGrained: {}, oauthScopes: [] },
  workflow_run_completed: { fineGrained: {}, oauthScopes: [] },
  workflow_job_completed: { fineGrained: {}, oauthScopes: [] },
  new_collaborator: { fineGrained: {}, oauthScopes: [] },
  new_mention: { fineGrained: {}, oauthScopes: [] },
  project_item_status_changed: { fineGrained: { organization_projects: 'read' }, oauthScopes: ['read:project'] },
  // A column filter given by name: GET /projects/{id}/columns when subscribing.
  new_card_in_column: { fineGrained: { repository_projects: 'read' }, oauthScopes: ['read:project'] },
  new_release: { fineGrained: {}, oauthScopes: [] },
  // GET /gists: the account's own gists.
  new_gist: { fineGrained: {}, oauthScopes: ['gist'] },
  new_discussion: { fineGrained: {}, oauthScopes: [] },
  new_discussion_comment: { fineGrained: {}, oauthScopes: [] },
};

/** Creating, narrowing and deleting the hook a webhook trigger is served by, by the hook's owner. */
const hookGrants = {
  repository: { fineGrained: { repository_hooks: 'write' }, oauthScopes: ['admin:repo_hook'] },
  organization: { fineGrained: { organization_hooks: 'write' }, oauthScopes: ['admin:org_hook'] },
} as const satisfies Record<string, Grant>;

/**
 * The permissions only a hook of the token's own needs: a GitHub App's events come to its one
 * webhook instead, so an App is never asked for these.
 */
export const hookPermissionNames: ReadonlySet<string> = new Set(Object.values(hookGrants).flatMap((g) => Object.keys(g.fineGrained)));

/** Both grants together: each permission at the higher of the two levels, every scope once. */
export function mergeGrants(...grants: Grant[]): Grant {
  const fineGrained: Record<string, 'read' | 'write'> = {};
  for (const g of grants)
    for (const [name, level] of Object.entries(g.fineGrained)) fineGrained[name] = fineGrained[name] === 'write' ? 'write' : level;
  return { fineGrained, oauthScopes: [...new Set(grants.flatMap((g) => g.oauthScopes))] };
}

/**
 * What a subscription to `trigger` on `target` needs of the connection's token, given how its
 * events arrive there (`source`, from the catalog): the hook on the repository or the
 * organization, and what the trigger reads.
 */
export function triggerGrant(trigger: TriggerName, target: SubscriptionTarget, source: TriggerSource): Grant {
  const { on, ...read } = reads[trigger];
  const reading = on === undefined || on.includes(target.kind) ? [read] : [];
  if (source.kind !== 'webhook') return mergeGrants(...reading);
  const owner = target.kind === 'organization' ? 'organization' : 'repository';
  return mergeGrants(hookGrants[owner], ...reading);
}
