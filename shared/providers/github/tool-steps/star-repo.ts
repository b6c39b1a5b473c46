import * as z from 'zod';
import { githubStep, repoInput, repositoryOf, needs } from './common';

export const starRepo = githubStep({
  id: 'github.star_repo',
  title: 'Star Repo',
  toolset: 'repos',
  description: 'Stars a repository for the connected account. Starring an already starred repository is not an error.',
  output: () => z.object({ starred: z.literal(true), repository: z.string().describe('owner/name') }),
  permissions: needs({ starring: 'write' }, 'public_repo'),
  input: () => z.strictObject(repoInput),
  repositoryOf,
  async run(args, client) {
    await client.request('PUT /user/starred/{owner}/{repo}', args);
    return { starred: true, repository: repositoryOf(args) };
  },
});
