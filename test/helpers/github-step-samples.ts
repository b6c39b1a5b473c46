import type { MatchedRequest, OperationResponder } from './openapi-check';

/**
 * Sample calls of the code-host tool steps and plausible answers of the code host, shared
 * by the step tests and the local-runtime test (every step through `npm start`).
 */

export const sha = (c: string) => c.repeat(40);
export const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** Plausible answers of the code host, enough for every step to finish. */
export function defaultAnswers(base: () => string): Record<string, OperationResponder> {
  const body = (r: MatchedRequest) => (r.json ?? {}) as Record<string, unknown>;
  return {
    'repos/get': (r) => ({ body: { id: 1, name: r.params.repo, full_name: `${r.params.owner}/${r.params.repo}`, default_branch: 'trunk' } }),
    'repos/create-for-authenticated-user': (r) => ({ status: 201, body: { id: 2, full_name: `octocat/${String(body(r).name)}` } }),
    'repos/create-in-org': (r) => ({ status: 201, body: { id: 3, full_name: `${r.params.org}/${String(body(r).name)}` } }),
    'repos/get-content': (r) => ({ body: { type: 'file', name: r.params.path, path: r.params.path, sha: sha('b'), encoding: 'base64', content: b64('hello\n') } }),
    'activity/star-repo-for-authenticated-user': () => ({ status: 204 }),
    'git/get-ref': (r) => ({ body: { ref: `refs/${r.params.ref}`, object: { sha: sha('a'), type: 'commit' } } }),
    'git/create-ref': (r) => ({ status: 201, body: { ref: body(r).ref, url: `${base()}/x`, object: { sha: body(r).sha, type: 'commit' } } }),
    'repos/get-commit': (r) => ({ body: { sha: sha('c'), commit: { message: `commit ${r.params.ref}` } } }),
    'repos/list-commits': () => ({ body: [{ sha: sha('c') }] }),
    'repos/create-or-update-file-contents': (r) => ({ status: 201, body: { content: { path: r.params.path, sha: sha('d') }, commit: { sha: sha('e'), message: body(r).message } } }),
    'issues/create': (r) => ({ status: 201, body: { number: 7, title: body(r).title } }),
    'issues/create-comment': (r) => ({ status: 201, body: { id: 9, body: body(r).body } }),
    'issues/update': (r) => ({ body: { number: Number(r.params.issue_number), ...body(r) } }),
    'issues/get': (r) => ({ body: { number: Number(r.params.issue_number), assignees: [{ login: 'hubot' }, { login: 'octocat' }] } }),
    'search/issues-and-pull-requests': () => ({
      body: {
        total_count: 2,
        incomplete_results: false,
        items: [
          { number: 1, repository_url: `${base()}/repos/octo/allowed` },
          { number: 2, repository_url: `${base()}/repos/octo/other` },
        ],
      },
    }),
    'pulls/create': (r) => ({ status: 201, body: { number: 11, base: { ref: body(r).base }, head: { ref: body(r).head } } }),
    'pulls/list-requested-reviewers': () => ({ body: { users: [], teams: [] } }),
    'pulls/list-reviews': () => ({ body: [] }),
    'actions/create-workflow-dispatch': () => ({ status: 204 }),
    'actions/enable-workflow': () => ({ status: 204 }),
    'actions/disable-workflow': () => ({ status: 204 }),
    'actions/get-workflow-run': (r) => ({ body: { id: Number(r.params.run_id), status: 'completed', conclusion: 'timed_out' } }),
    'actions/list-workflow-runs-for-repo': () => ({ body: { total_count: 2, workflow_runs: [{ id: 1, status: 'completed', conclusion: 'success' }, { id: 2, status: 'in_progress', conclusion: null }] } }),
    'actions/list-workflow-runs': () => ({ body: { total_count: 1, workflow_runs: [{ id: 3, status: 'completed', conclusion: 'cancelled' }] } }),
    'gists/create': () => ({ status: 201, body: { id: 'abc123' } }),
    'gists/update': (r) => ({ body: { id: r.params.gist_id } }),
    'gists/get': (r) => ({ body: { id: r.params.gist_id, description: 'as it is' } }),
    'gists/list-for-user': () => ({ body: [{ id: 'g1' }] }),
    'gists/list': () => ({ body: [{ id: 'g2' }] }),
    'repos/list-releases': () => ({ body: [{ id: 1, tag_name: 'v1.0.0' }] }),
    'users/get-authenticated': () => ({ body: { login: 'octocat', id: 1 } }),
    graphql: (r) => {
      const query = String((r.json as { query?: string }).query);
      if (query.includes('fields(')) {
        return {
          body: {
            data: {
              node: {
                id: 'PVT_project1',
                fields: { nodes: [{}, { id: 'PVTSSF_status', name: 'Status', options: [{ id: 'opt_todo', name: 'Todo' }, { id: 'opt_doing', name: 'In Progress' }] }] },
              },
            },
          },
        };
      }
      return { body: { data: { updateProjectV2ItemFieldValue: { projectV2Item: { id: 'PVTI_item1' } } } } };
    },
  };
}

/** Each step called with exactly the required inputs of its schema (checked below). */
export const requiredOnly: Record<string, Record<string, unknown>> = {
  'github.create_repository': { name: 'new-repo' },
  'github.get_repository': { owner: 'octo', repo: 'allowed' },
  'github.get_repository_content': { owner: 'octo', repo: 'allowed' },
  'github.star_repo': { owner: 'octo', repo: 'allowed' },
  'github.create_branch': { owner: 'octo', repo: 'allowed', ref: 'feature/x' },
  'github.get_commit': { owner: 'octo', repo: 'allowed', ref: 'main' },
  'github.list_commits': { owner: 'octo', repo: 'allowed' },
  'github.create_or_update_file_contents': { owner: 'octo', repo: 'allowed', path: 'docs/a.md', message: 'docs', content: '# A\n' },
  'github.create_issue': { owner: 'octo', repo: 'allowed', title: 'Bug' },
  'github.create_issue_comment': { owner: 'octo', repo: 'allowed', issue_number: 3, body: 'Thanks' },
  'github.update_issue': { owner: 'octo', repo: 'allowed', issue_number: 3 },
  'github.get_issue_assignees': { owner: 'octo', repo: 'allowed', issue_number: 3 },
  'github.search_issues_and_pull_requests': { q: 'is:open label:bug' },
  'github.create_pull_request': { owner: 'octo', repo: 'allowed', title: 'Add x', head: 'feature/x' },
  'github.get_reviewers': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.update_project_v2_item_status': { project_id: 'PVT_project1', item_id: 'PVTI_item1', status: 'in progress' },
  'github.create_workflow_dispatch': { owner: 'octo', repo: 'allowed', workflow_id: 'ci.yml' },
  'github.enable_workflow': { owner: 'octo', repo: 'allowed', workflow_id: 42 },
  'github.disable_workflow': { owner: 'octo', repo: 'allowed', workflow_id: 42 },
  'github.get_workflow_run': { owner: 'octo', repo: 'allowed', run_id: 99 },
  'github.list_workflow_runs': { owner: 'octo', repo: 'allowed' },
  'github.create_gist': { files: { 'a.md': { content: 'hi' } } },
  'github.update_gist': { gist_id: 'abc123' },
  'github.list_gists_for_user': {},
  'github.list_releases': { owner: 'octo', repo: 'allowed' },
};

