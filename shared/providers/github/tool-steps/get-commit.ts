import * as z from 'zod';
import { gitRef, githubStep, repoInput, repositoryOf, needs } from './common';
import { commit } from './outputs';

export const getCommit = githubStep({
  id: 'github.get_commit',
  title: 'Get Commit',
  toolset: 'repos',
  description: "Returns one commit's details: message, author, committer, parents, stats and changed files.",
  output: commit,
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, ref: gitRef('Commit SHA, branch or tag name') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/commits/{ref}', args);
    return data;
  },
});
