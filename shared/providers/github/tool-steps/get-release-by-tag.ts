import * as z from 'zod';
import { gitRef, githubStep, needs, repoInput, repositoryOf } from './common';
import { release } from './outputs';

export const getReleaseByTag = githubStep({
  id: 'github.get_release_by_tag',
  title: 'Get Release by Tag',
  toolset: 'repos',
  description:
    'Returns the published release of a tag: its name, notes (`body`), author, assets and whether it is a prerelease; `not_found` when the tag has no published release. For the newest release whatever its tag use github.get_latest_release; to page through all, github.list_releases.',
  output: release,
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, tag: gitRef('The tag name, e.g. v1.2.0') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/releases/tags/{tag}', args);
    return data;
  },
});
