import * as z from 'zod';
import { githubStep, repoInput, repositoryOf } from './common';

export const getRepository = githubStep({
  id: 'github.get_repository',
  title: 'Get Repository Info',
  description:
    'Returns information about a repository: description, default branch, visibility, counts, topics, permissions of the connected account.',
  outputDescription:
    'The repository as the code host returns it (id, full_name, description, default_branch, visibility, stargazers_count, open_issues_count, topics, permissions, ...).',
  input: () => z.strictObject(repoInput),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}', args);
    return data;
  },
});
