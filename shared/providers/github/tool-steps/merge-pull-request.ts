import * as z from 'zod';
import { defined, describeRequest, dryRun, githubStep, needs, repositoryOf } from './common';
import { commitSha, pullInput } from './pull-input';

const input = () =>
  z.strictObject({
    ...pullInput,
    merge_method: z.enum(['merge', 'squash', 'rebase']).optional().describe('merge (default), squash or rebase, as the repository allows'),
    commit_title: z.string().min(1).max(256).optional().describe('Title of the merge or squash commit'),
    commit_message: z.string().max(65536).optional().describe('Extra detail of the merge or squash commit'),
    sha: commitSha('The head commit that must be merged: refused (409) when the head moved since').optional(),
    dryRun,
  });

export const mergePullRequest = githubStep({
  id: 'github.merge_pull_request',
  title: 'Merge Pull Request',
  description:
    'Merges a pull request into its base branch (merge, squash or rebase). It cannot be undone: check get_pull_request (mergeable, draft) and list_checks_for_ref first, and give `sha` so that only the head you checked is merged. Answers the merge commit sha; refused when checks or reviews the branch requires are missing (405) or the head moved (409).',
  output: () =>
    z.object({
      merged: z.boolean(),
      sha: z.string().optional().describe('The merge commit'),
      message: z.string().optional(),
    }),
  permissions: needs({ contents: 'write', pull_requests: 'write' }, 'repo'),
  toolset: 'pull_requests',
  input,
  destructive: true,
  repositoryOf,
  async run(args, client) {
    const { dryRun: dry, ...params } = args;
    const route = 'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge';
    if (dry) return describeRequest(client, route, defined(params));
    const { data } = await client.request(route, defined(params));
    return data;
  },
});
