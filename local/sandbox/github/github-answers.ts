import { pullRequestAnswers } from './github-answers-prs';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import { repoToolAnswers } from './github-answers-repos';
import { sampleLogPath } from './sample-log';
import type { SimulatedResponse } from '../simulated-http';

export { sampleLogPath, serveSampleLog } from './sample-log';

/**
 * Plausible answers of the code host for every operation the tool steps call, keyed by the
 * REST description's operationId: the sandbox's simulated code host (`npm run dev`) and the
 * step tests answer with these.
 */

export const sha = (c: string) => c.repeat(40);
export const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** Plausible answers of the code host, enough for every step to finish. */
export function defaultAnswers(base: () => string): Record<string, OperationResponder> {
  const body = (r: MatchedRequest) => (r.json ?? {}) as Record<string, unknown>;
  return {
    'repos/get': (r) => ({
      body: { id: 1, name: r.params.repo, full_name: `${r.params.owner}/${r.params.repo}`, default_branch: 'trunk' },
    }),
    'repos/create-for-authenticated-user': (r) => ({ status: 201, body: { id: 2, full_name: `octocat/${String(body(r).name)}` } }),
    'repos/create-in-org': (r) => ({ status: 201, body: { id: 3, full_name: `${r.params.org}/${String(body(r).name)}` } }),
    'repos/get-content': (r) => ({
      body: { type: 'file', name: r.params.path, path: r.params.path, sha: sha('b'), encoding: 'base64', content: b64('hello\n') },
    }),
    'activity/star-repo-for-authenticated-user': () => ({ status: 204 }),
    'git/get-ref': (r) => ({ body: { ref: `refs/${r.params.ref}`, object: { sha: sha('a'), type: 'commit' } } }),
    'git/create-ref': (r) => ({
      status: 201,
      body: { ref: body(r).ref, url: `${base()}/x`, object: { sha: body(r).sha, type: 'commit' } },
    }),
    'repos/get-commit': (r) => ({ body: { sha: sha('c'), commit: { message: `commit ${r.params.ref}` } } }),
    'repos/list-commits': () => ({ body: [{ sha: sha('c') }] }),
    'repos/create-or-update-file-contents': (r) => ({
      status: 201,
      body: { content: { path: r.params.path, sha: sha('d') }, commit: { sha: sha('e'), message: body(r).message } },
    }),
    'issues/create': (r) => ({ status: 201, body: { number: 7, title: body(r).title } }),
    'issues/create-comment': (r) => ({ status: 201, body: { id: 9, body: body(r).body } }),
    'issues/update': (r) => {
      const { assignees, ...changes } = body(r);
      // The code host answers assignees as accounts, not the logins it was sent.
      const accounts = Array.isArray(assignees) ? { assignees: assignees.map((login) => ({ login })) } : {};
      return { body: { number: Number(r.params.issue_number), ...changes, ...accounts } };
    },
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
    ...actionsAndGistAnswers(),
    'repos/list-releases': () => ({ body: [{ id: 1, tag_name: 'v1.0.0' }] }),
    'users/get-authenticated': () => ({ body: { login: 'octocat', id: 1 } }),
    ...pullRequestAnswers(),
    ...jobAnswers(base),
    graphql: graphqlAnswer,
    ...repoToolAnswers(base),
  };
}

/** The workflow and gist operations, each with a plausible answer. */
function actionsAndGistAnswers(): Record<string, OperationResponder> {
  return {
    'actions/create-workflow-dispatch': () => ({ status: 204 }),
    'actions/enable-workflow': () => ({ status: 204 }),
    'actions/disable-workflow': () => ({ status: 204 }),
    'actions/get-workflow-run': (r) => ({ body: { id: Number(r.params.run_id), status: 'completed', conclusion: 'timed_out' } }),
    'actions/list-workflow-runs-for-repo': () => ({
      body: {
        total_count: 2,
        workflow_runs: [
          { id: 1, status: 'completed', conclusion: 'success' },
          { id: 2, status: 'in_progress', conclusion: null },
        ],
      },
    }),
    'actions/list-workflow-runs': () => ({
      body: { total_count: 1, workflow_runs: [{ id: 3, status: 'completed', conclusion: 'cancelled' }] },
    }),
    'gists/create': () => ({ status: 201, body: { id: 'abc123' } }),
    'gists/update': (r) => ({ body: { id: r.params.gist_id } }),
    'gists/get': (r) => ({ body: { id: r.params.gist_id, description: 'as it is' } }),
    'gists/list-for-user': () => ({ body: [{ id: 'g1' }] }),
    'gists/list': () => ({ body: [{ id: 'g2' }] }),
  };
}

/** GraphQL: a discussion, a project's fields, or the project item's status update. */
function graphqlAnswer(r: MatchedRequest): SimulatedResponse {
  const query = String((r.json as { query?: string }).query);
  const discussion = discussionAnswer(query);
  if (discussion) return { body: discussion };
  if (query.includes('fields(')) {
    return {
      body: {
        data: {
          node: {
            id: 'PVT_project1',
            fields: {
              nodes: [
                {},
                {
                  id: 'PVTSSF_status',
                  name: 'Status',
                  options: [
                    { id: 'opt_todo', name: 'Todo' },
                    { id: 'opt_doing', name: 'In Progress' },
                  ],
                },
              ],
            },
          },
        },
      },
    };
  }
  return { body: { data: { updateProjectV2ItemFieldValue: { projectV2Item: { id: 'PVTI_item1' } } } } };
}

// discussions, actions: the jobs of a run, the log's redirect (answered by the log path below), re-run and cancel.
const job = (runId: number, n: number, conclusion: string) => ({
  id: runId * 100 + n,
  run_id: runId,
  run_attempt: 1,
  name: n === 1 ? 'build' : 'test',
  status: 'completed',
  conclusion,
  head_sha: sha('a'),
  steps: [{ name: 'Run npm test', number: 1, status: 'completed', conclusion }],
});

function jobAnswers(base: () => string): Record<string, OperationResponder> {
  return {
    'actions/list-jobs-for-workflow-run': (r) => {
      const runId = Number(r.params.run_id);
      return { body: { total_count: 2, jobs: [job(runId, 1, 'success'), job(runId, 2, 'failure')] } };
    },
    'actions/download-job-logs-for-workflow-run': () => ({ status: 302, headers: { location: `${base()}${sampleLogPath}?sig=x` } }),
    'actions/re-run-workflow-failed-jobs': () => ({ status: 201, body: {} }),
    'actions/cancel-workflow-run': () => ({ status: 202, body: {} }),
  };
}

function discussionAnswer(query: string): unknown {
  const comment = {
    id: 'DC_1',
    body: 'First',
    url: 'https://github.com/o/r/discussions/1#discussioncomment-1',
    createdAt: '2026-01-01T00:00:00Z',
    author: { login: 'octocat' },
  };
  if (query.includes('addDiscussionComment'))
    return { data: { addDiscussionComment: { comment: { ...comment, id: 'DC_2', replyTo: null } } } };
  if (query.includes('... on DiscussionComment')) return { data: { node: { id: 'DC_1', discussion: { id: 'D_1' }, replyTo: null } } };
  if (!query.includes('discussion(number')) return undefined;
  return {
    data: {
      repository: {
        discussion: {
          id: 'D_1',
          number: 1,
          title: 'Welcome',
          body: 'Hello',
          url: 'https://github.com/o/r/discussions/1',
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: '2026-01-01T00:00:00Z',
          closed: false,
          locked: false,
          isAnswered: null,
          author: { login: 'octocat' },
          category: { name: 'General' },
          comments: {
            totalCount: 1,
            pageInfo: { hasNextPage: false, endCursor: 'Y3Vyc29yOjE=' },
            nodes: [{ ...comment, isAnswer: false, replies: { totalCount: 0, nodes: [] } }],
          },
        },
      },
    },
  };
}
