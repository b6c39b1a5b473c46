/**
 * A lying `X-GitHub-Event` header (the header is not signed, the body is): a signed body of
 * one event sent under another event's name must map to nothing. Most bodies are told apart
 * by the mappers' schemas, but several events carry nothing of their own beyond repository
 * and sender (`repository`, `watch`), and many share `action` values (`created`), so any
 * body with the right action would fit them. Two rules, from the code host's published
 * webhook schemas (the `x-webhooks` section of its OpenAPI description; the test
 * `event-confusion.test.ts` holds these tables against it):
 * - a body must carry the keys that every body of its event carries (`must`), and
 * - it must not carry a key that names another event's subject (`subjectKeys`) unless its own
 *   event documents that key (`may`): a `repository` body holding a `rule` or a `label` is
 *   not a repository event.
 * Keys the code host adds later are not subject keys, so a new field never refuses a body.
 */

/**
 * Top-level keys some webhook event requires, other than the envelope and generic ones
 * (`content_reference`: an event of older Enterprise Server versions).
 */
const subjectKeys: ReadonlySet<string> = new Set([
  'content_reference',
  'account',
  'after',
  'alert',
  'answer',
  'assignee',
  'base_ref',
  'before',
  'blocked_user',
  'branch',
  'branches',
  'build',
  'check_run',
  'check_suite',
  'client_payload',
  'comment',
  'commit',
  'commit_oid',
  'commits',
  'compare',
  'context',
  'created',
  'definition',
  'deleted',
  'deployment',
  'deployment_status',
  'discussion',
  'environment',
  'forced',
  'forkee',
  'head_commit',
  'hook',
  'hook_id',
  'inputs',
  'invitation',
  'issue',
  'issue_field',
  'key',
  'label',
  'location',
  'marketplace_purchase',
  'master_branch',
  'member',
  'membership',
  'merge_group',
  'milestone',
  'new_property_values',
  'old_answer',
  'old_property_values',
  'package',
  'pages',
  'parent_issue',
  'parent_issue_id',
  'personal_access_token_request',
  'project',
  'project_card',
  'project_column',
  'projects_v2',
  'projects_v2_item',
  'projects_v2_status_update',
  'pull_request',
  'pusher',
  'pusher_type',
  'ref',
  'ref_type',
  'registry_package',
  'release',
  'repositories_added',
  'repositories_removed',
  'repository_advisory',
  'repository_ruleset',
  'repository_selection',
  'requested_reviewer',
  'requested_team',
  'requester',
  'requestor',
  'review',
  'reviewers',
  'rule',
  'security_advisory',
  'sha',
  'sponsorship',
  'starred_at',
  'sub_issue',
  'sub_issue_id',
  'target_url',
  'team',
  'thread',
  'workflow',
  'workflow_job',
  'workflow_job_run',
  'workflow_run',
]);

interface Shape {
  /** Subject keys every body of the event carries. */
  must: readonly string[];
  /** Other subject keys some of its bodies carry. */
  may: readonly string[];
}

/** The events the mapping reads. */
export const eventShapes: Readonly<Record<string, Shape>> = {
  commit_comment: { must: ['comment'], may: [] },
  create: { must: ['master_branch', 'pusher_type', 'ref', 'ref_type'], may: [] },
  discussion: { must: ['discussion'], may: ['answer', 'label', 'old_answer'] },
  discussion_comment: { must: ['comment', 'discussion'], may: [] },
  fork: { must: ['forkee'], may: [] },
  issue_comment: { must: ['comment', 'issue'], may: [] },
  issues: { must: ['issue'], may: ['assignee', 'issue_field', 'label', 'milestone'] },
  member: { must: ['member'], may: [] },
  project_card: { must: ['project_card'], may: [] },
  projects_v2_item: { must: ['projects_v2_item'], may: [] },
  pull_request: {
    must: ['pull_request'],
    may: ['after', 'assignee', 'before', 'label', 'milestone', 'requested_reviewer', 'requested_team'],
  },
  pull_request_review: { must: ['pull_request', 'review'], may: [] },
  pull_request_review_comment: { must: ['comment', 'pull_request'], may: [] },
  push: {
    must: ['after', 'base_ref', 'before', 'commits', 'compare', 'created', 'deleted', 'forced', 'head_commit', 'pusher', 'ref'],
    may: [],
  },
  release: { must: ['release'], may: [] },
  repository: { must: [], may: [] },
  star: { must: ['starred_at'], may: [] },
  watch: { must: [], may: [] },
  workflow_job: { must: ['workflow_job'], may: ['deployment'] },
  workflow_run: { must: ['workflow', 'workflow_run'], may: [] },
};

export { subjectKeys };

/** False when the body lacks what `event` always carries, or carries another event's subject. */
export function fitsEvent(event: string, payload: Record<string, unknown>): boolean {
  return misfitKeys(event, payload).length === 0;
}

/**
 * The keys that make a body not fit `event` (none when it fits): those `event` always
 * carries that are missing, then those naming another event's subject. For the log line of
 * a refused body, so that a new field the code host adds under a subject key is seen at once.
 */
export function misfitKeys(event: string, payload: Record<string, unknown>): string[] {
  const shape = eventShapes[event];
  if (!shape) return [];
  const missing = shape.must.filter((key) => !(key in payload));
  const foreign = Object.keys(payload).filter((key) => subjectKeys.has(key) && !shape.must.includes(key) && !shape.may.includes(key));
  return [...missing, ...foreign];
}
