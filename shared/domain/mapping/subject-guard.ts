/**
 * A lying `X-GitHub-Event` header: most bodies are told apart by their schemas (an `issues`
 * body has no `commits`), but a few events carry nothing of their own beyond repository and
 * sender (`watch`), so any body would fit them. This guard refuses a body that carries the
 * subject of ANOTHER event: a `watch` body holding an `issue` is not a watch.
 */

/** The top-level keys that name an event's subject. */
const subjectKeys = [
  'issue',
  'pull_request',
  'comment',
  'review',
  'release',
  'discussion',
  'workflow_run',
  'workflow_job',
  'forkee',
  'member',
  'project_card',
  'projects_v2_item',
  'starred_at',
  'commits',
  'ref_type',
] as const;
type SubjectKey = (typeof subjectKeys)[number];

/** The subject keys each mapped event's real bodies carry. */
const own: Readonly<Record<string, readonly SubjectKey[]>> = {
  issues: ['issue'],
  pull_request: ['pull_request'],
  pull_request_review: ['pull_request', 'review'],
  issue_comment: ['issue', 'comment'],
  pull_request_review_comment: ['pull_request', 'comment'],
  commit_comment: ['comment'],
  push: ['commits'],
  create: ['ref_type'],
  release: ['release'],
  discussion: ['discussion'],
  discussion_comment: ['discussion', 'comment'],
  workflow_run: ['workflow_run'],
  workflow_job: ['workflow_job'],
  fork: ['forkee'],
  member: ['member'],
  star: ['starred_at'],
  watch: [],
  repository: [],
  projects_v2_item: ['projects_v2_item'],
  project_card: ['project_card'],
};

/** False when the body carries a subject that `event` never carries. */
export function fitsEvent(event: string, payload: Record<string, unknown>): boolean {
  const allowed = own[event];
  if (!allowed) return true;
  return subjectKeys.every((key) => allowed.includes(key) || !(key in payload));
}
