import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { githubTools } from '../../shared/providers/github/tools';
import { stepIndex } from '../../shared/tools/catalog';
import { invokeTool } from '../../shared/tools/invoke';
import { defaultAnswers, requiredOnly } from '../helpers/github-step-samples';
import { type OpenApiFakeGitHub, startOpenApiFakeGitHub } from '../helpers/openapi-check';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The outside check of the loop: the 35 code-host operations an agent needs to answer what
 * woke it, each with the tool that reaches it. Every listed tool is called with its sample
 * input against the fake code host that holds each request to GitHub's OpenAPI description,
 * and the distinct operations reached are counted.
 */
const table: Record<string, string> = {
  'pulls/get': 'github.get_pull_request',
  'pulls/list-files': 'github.list_pull_request_files',
  'checks/list-for-ref': 'github.list_checks_for_ref',
  'pulls/create-review': 'github.create_pull_request_review',
  'pulls/create-reply-for-review-comment': 'github.reply_to_review_comment',
  'pulls/update-branch': 'github.update_pull_request_branch',
  'pulls/merge': 'github.merge_pull_request',
  'pulls/list': 'github.list_pull_requests',
  'issues/get': 'github.get_issue',
  'issues/list-comments': 'github.list_issue_comments',
  'issues/add-labels': 'github.add_labels',
  'issues/remove-label': 'github.remove_label',
  'issues/list-for-repo': 'github.list_issues',
  'graphql:discussion': 'github.get_discussion',
  'graphql:addDiscussionComment': 'github.add_discussion_comment',
  'actions/list-jobs-for-workflow-run': 'github.list_jobs_for_workflow_run',
  'actions/download-job-logs-for-workflow-run': 'github.get_job_logs',
  'actions/re-run-workflow-failed-jobs': 'github.rerun_failed_jobs',
  'actions/cancel-workflow-run': 'github.cancel_workflow_run',
  'repos/list-branches': 'github.list_branches',
  'repos/list-tags': 'github.list_tags',
  'repos/get-release-by-tag': 'github.get_release_by_tag',
  'repos/get-latest-release': 'github.get_latest_release',
  'repos/compare-commits-with-basehead': 'github.compare_commits',
  'git/get-tree': 'github.get_tree',
  'git/create-tree': 'github.commit_files',
  'git/create-commit': 'github.commit_files',
  'git/update-ref': 'github.commit_files',
  'repos/delete-file': 'github.delete_file',
  'repos/create-fork': 'github.create_fork',
  'users/get-authenticated': 'github.get_authenticated_user',
  'repos/get-collaborator-permission-level': 'github.get_collaborator_permission',
  'search/code': 'github.search_code',
  'search/commits': 'github.search_commits',
  'search/repos': 'github.search_repositories',
};

const registered = stepIndex(allProviderTools());
const tools = [...new Set(Object.values(table))];
const present = tools.filter((t) => registered.has(t));

let gh: OpenApiFakeGitHub;
let t: ToolTestContext;
beforeAll(async () => {
  gh = await startOpenApiFakeGitHub(defaultAnswers(() => gh.url));
  t = await toolTestContext({ GITHUB_API_URL: gh.url });
});
afterAll(() => gh.close());

/** An operation as reached: a REST operation id, or the GraphQL operation the query names. */
function reached(): Set<string> {
  return new Set(
    gh.calls.map((c) => {
      if (c.operationId !== 'graphql') return c.operationId;
      const query = String((c.json as { query?: string }).query);
      return query.includes('addDiscussionComment')
        ? 'graphql:addDiscussionComment'
        : query.includes('discussion(number')
          ? 'graphql:discussion'
          : 'graphql';
    }),
  );
}

describe('the tools of the loop reach the code host operations of its table', () => {
  it('the table lists 35 operations', () => {
    expect(Object.keys(table)).toHaveLength(35);
  });

  it('every registered tool of the table, called with its sample, reaches its operations with requests the description accepts', async () => {
    for (const toolId of present) {
      // A connection per tool: the code host's write spacing (a second between writes) is per account (throttle id).
      const conn = await t.connect();
      const r = await invokeTool(t.ctx, { toolId, connectionId: conn.id, input: requiredOnly[toolId] ?? {} }, [githubTools]);
      expect(r.ok, `${toolId}: ${JSON.stringify(r.ok ? '' : r.error)}`).toBe(true);
    }
    expect(gh.problems).toEqual([]);
    const ops = reached();
    const expected = Object.entries(table)
      .filter(([, tool]) => registered.has(tool))
      .map(([op]) => op);
    expect(expected.filter((op) => !ops.has(op))).toEqual([]);
    // Every tool of the table is registered, so all 35 operations are reached.
    expect(present).toEqual(tools);
    expect(expected).toHaveLength(35);
  });
});
