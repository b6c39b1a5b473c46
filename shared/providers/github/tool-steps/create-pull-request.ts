import * as z from 'zod';
import { defaultBranch, defined, gitRef, githubStep, repoInput, repositoryOf, needs } from './common';
import { pullRequest } from './outputs';

const input = () =>
  z.strictObject({
    ...repoInput,
    title: z.string().min(1).max(256).describe('The title of the pull request'),
    head: z.string().min(1).max(300).describe('The branch with the changes; for a branch of a fork write username:branch'),
    head_repo: z.string().max(100).optional().describe('Name of the repository holding `head`, when it is a fork in the same organization'),
    base: gitRef("The branch to merge into (default: the repository's default branch)").optional(),
    body: z.string().max(65536).optional().describe('The description (Markdown)'),
    draft: z.boolean().optional().describe('Open it as a draft'),
    maintainer_can_modify: z.boolean().optional().describe('Let maintainers of the base repository push to the head branch'),
  });

export const createPullRequest = githubStep({
  id: 'github.create_pull_request',
  title: 'Create Pull Request',
  toolset: 'pull_requests',
  description: "Opens a pull request from `head` into `base`; `base` defaults to the repository's default branch.",
  output: pullRequest,
  permissions: needs({ pull_requests: 'write' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const base = args.base ?? (await defaultBranch(client, args));
    const { data } = await client.request('POST /repos/{owner}/{repo}/pulls', defined({ ...args, base }));
    return data;
  },
});
