import * as z from 'zod';
import { githubStep, needs, repoInput, repositoryOf } from './common';
import { release } from './outputs';

export const getLatestRelease = githubStep({
  id: 'github.get_latest_release',
  title: 'Get Latest Release',
  toolset: 'repos',
  description:
    "Returns the repository's latest release: the most recent one that is published and neither a draft nor a prerelease (the code host's choice, by the date of its commit); `not_found` when there is none. For a given tag use github.get_release_by_tag.",
  output: release,
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () => z.strictObject(repoInput),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/releases/latest', args);
    return data;
  },
});
