import * as z from 'zod';
import { githubStep, needs, repositoryOf } from './common';
import { account, pullRequest } from './outputs';
import { pullInput } from './pull-input';

/** A pull request as `pulls/get` answers it: the list fields and what only the single answer has. */
export const pullRequestDetail = () =>
  pullRequest().extend({
    merged_by: account().nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    rebaseable: z.boolean().nullable().optional(),
    comments: z.number().int().optional(),
    review_comments: z.number().int().optional(),
    requested_teams: z
      .array(z.object({ slug: z.string().optional(), name: z.string().optional() }))
      .nullable()
      .optional(),
    auto_merge: z.object({ merge_method: z.string().optional() }).nullable().optional(),
  });

export const getPullRequest = githubStep({
  id: 'github.get_pull_request',
  title: 'Get Pull Request',
  description:
    "Returns one pull request: title, body, state, draft, head and base branches with their commits, who opened it, requested reviewers, labels, whether it is merged or mergeable, and its size (commits, changed files, additions, deletions). For the change itself use get_pull_request_diff (the unified diff) or list_pull_request_files (each file's patch); for CI results use list_checks_for_ref on head.sha; for reviews use get_reviewers.",
  output: pullRequestDetail,
  permissions: needs({ pull_requests: 'read' }, 'repo'),
  toolset: 'pull_requests',
  input: () => z.strictObject(pullInput),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', args);
    return data;
  },
});
