import * as z from 'zod';
import { githubStep, needs, pagesOf } from './common';
import { repository } from './outputs';
import { searchInput, searchListed, withinReach } from './search-scope';

type Hit = { full_name?: string };

export const searchRepositories = githubStep({
  id: 'github.search_repositories',
  title: 'Search Repositories',
  toolset: 'search',
  description:
    "Searches repositories by name, description, topics, language, owner, stars and more with the code host's search syntax, and returns the repositories. For one repository you know, github.get_repository; to search inside repositories, github.search_code.",
  output: () => searchListed(repository().extend({ score: z.number().optional() })),
  permissions: needs({ metadata: 'read' }, 'repo'),
  input: () =>
    z.strictObject({
      ...searchInput('"tetris language:assembly stars:>10" or "user:octocat"'),
      sort: z.enum(['stars', 'forks', 'help-wanted-issues', 'updated']).optional().describe('Sort field (default: best match)'),
    }),
  async run(args, client, ctx) {
    const found = await pagesOf<Hit>('GET /search/repositories', 'items')(args, client);
    return withinReach(found, ctx.connection, (hit) => hit.full_name);
  },
});
