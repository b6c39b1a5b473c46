import * as z from 'zod';
import { gitRef, githubStep, repoInput, repositoryOf } from './common';

export const getCommit = githubStep({
  id: 'github.get_commit',
  title: 'Get Commit',
  description: "Returns one commit's details: message, author, committer, parents, stats and changed files.",
  outputDescription:
    'The commit as the code host returns it (sha, commit {message, author, committer}, author, parents, stats, files [{filename, status, additions, deletions, patch}]).',
  input: () => z.strictObject({ ...repoInput, ref: gitRef('Commit SHA, branch or tag name') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/commits/{ref}', args);
    return data;
  },
});
