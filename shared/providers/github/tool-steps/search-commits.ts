import * as z from 'zod';
import { githubStep, needs, pagesOf } from './common';
import { commit } from './outputs';
import { hitRepository, searchInput, searchListed, withinReach } from './search-scope';

type Hit = { repository?: { full_name?: string } };

export const searchCommits = githubStep({
  id: 'github.search_commits',
  title: 'Search Commits',
  toolset: 'search',
  description:
    "Searches commit messages (and authors, committers, dates, hashes) on default branches across repositories with the code host's search syntax, and returns the commits with their repository. To walk one branch's history use github.list_commits; to see what changed between two refs, github.compare_commits.",
  // A hit carries no stats or files (the search answer's items do not): read them with github.get_commit.
  output: () =>
    searchListed(commit().omit({ stats: true, files: true }).extend({ repository: hitRepository(), score: z.number().optional() })),
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () =>
    z.strictObject({
      ...searchInput('"fix crash repo:octocat/hello-world author:octocat"'),
      sort: z.enum(['author-date', 'committer-date']).optional().describe('Sort field (default: best match)'),
    }),
  async run(args, client, ctx) {
    const found = await pagesOf<Hit>('GET /search/commits', 'items')(args, client);
    return withinReach(found, ctx.connection, (hit) => hit.repository?.full_name);
  },
});
