import * as z from 'zod';
import { githubStep, repoInput, repositoryOf, needs } from './common';
import { repository } from './outputs';

export const getRepository = githubStep({
  id: 'github.get_repository',
  title: 'Get Repository Info',
  toolset: 'repos',
  description:
    'Returns information about a repository: description, default branch, visibility, counts, topics, permissions of the connected account.',
  output: repository,
  permissions: needs({ metadata: 'read' }, 'repo'),
  input: () => z.strictObject(repoInput),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}', args);
    return data;
  },
});
