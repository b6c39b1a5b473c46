import type { MatchedRequest, OperationResponder } from './openapi-check';

/**
 * Plausible answers of the pull-request, issue and user operations (toolsets pull_requests,
 * issues, users, context), keyed by operationId, beside defaultAnswers (github-answers.ts).
 */

const sha = (c: string) => c.repeat(40);

/** A pull request's diff in git's unified format, as the code host answers `Accept: application/vnd.github.diff`. */
export const sampleDiff = [
  'diff --git a/README.md b/README.md',
  'index 980a0d5..3b18e51 100644',
  '--- a/README.md',
  '+++ b/README.md',
  '@@ -1 +1,2 @@',
  ' # Hello World',
  '+A second line.',
  '',
].join('\n');

export function wantsDiff(r: MatchedRequest): boolean {
  return /application\/vnd\.github(?:\.v3)?\.diff/.test(String(r.headers.accept ?? ''));
}

export const diffAnswer = (text: string) => ({ headers: { 'content-type': 'application/vnd.github.diff; charset=utf-8' }, body: text });

export function pullRequestAnswers(): Record<string, OperationResponder> {
  const body = (r: MatchedRequest) => (r.json ?? {}) as Record<string, unknown>;
  const label = (name: string) => ({ id: name.length, name, color: 'ededed', default: false });
  return {
    'pulls/get': (r) =>
      wantsDiff(r)
        ? diffAnswer(sampleDiff)
        : { body: { number: Number(r.params.pull_number), head: { ref: 'feature', sha: sha('a') }, base: { ref: 'main', sha: sha('b') } } },
    'pulls/list': () => ({ body: [{ number: 5, title: 'A change' }] }),
    'pulls/list-files': () => ({ body: [{ filename: 'README.md', status: 'modified', additions: 1, deletions: 0, changes: 1 }] }),
    'checks/list-for-ref': () => ({
      body: { total_count: 1, check_runs: [{ id: 4, name: 'build', status: 'completed', conclusion: 'success' }] },
    }),
    'repos/get-combined-status-for-ref': () => ({ body: { state: 'success', statuses: [], total_count: 0, sha: sha('a') } }),
    'pulls/create-review': (r) => ({
      body: { id: 80, state: body(r).event === 'APPROVE' ? 'APPROVED' : 'COMMENTED', body: body(r).body ?? '' },
    }),
    'pulls/create-reply-for-review-comment': (r) => ({
      status: 201,
      body: { id: 12, body: body(r).body, in_reply_to_id: Number(r.params.comment_id) },
    }),
    'pulls/update-branch': () => ({
      status: 202,
      body: { message: 'Updating pull request branch.', url: 'https://github.com/o/r/pull/5' },
    }),
    'pulls/merge': () => ({ body: { sha: sha('c'), merged: true, message: 'Pull Request successfully merged' } }),
    'issues/list-for-repo': () => ({ body: [{ number: 3, title: 'Found a bug' }] }),
    'issues/list-comments': () => ({ body: [{ id: 9, body: 'Seen' }] }),
    'issues/add-labels': (r) => ({ body: ((body(r).labels as string[] | undefined) ?? []).map(label) }),
    'issues/remove-label': () => ({ body: [label('enhancement')] }),
    'repos/get-collaborator-permission-level': (r) => ({
      body: { permission: 'write', role_name: 'write', user: { login: r.params.username } },
    }),
  };
}
