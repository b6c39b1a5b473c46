import * as z from 'zod';
import { githubStep, needs, pagesOf } from './common';
import { hitRepository, searchInput, searchListed, withinReach } from './search-scope';

type Hit = { repository?: { full_name?: string } };

const codeHit = () =>
  z.object({
    name: z.string(),
    path: z.string(),
    sha: z.string().optional().describe('The blob SHA of the file'),
    html_url: z.string().optional(),
    repository: hitRepository(),
    score: z.number().optional(),
  });

export const searchCode = githubStep({
  id: 'github.search_code',
  title: 'Search Code',
  toolset: 'search',
  description:
    "Searches file contents and paths on default branches with the code host's code search syntax, and returns the matching files (repository, path, blob SHA), not the matching lines: read a file with github.get_repository_content. The code host requires a qualifier such as repo:, org: or user: beside the words, and limits code search to 10 requests a minute.",
  output: () => searchListed(codeHit()),
  permissions: needs({ contents: 'read' }, 'repo'),
  input: () =>
    z.strictObject({
      ...searchInput('"addClass in:file language:js repo:jquery/jquery"'),
      sort: z.enum(['indexed']).optional().describe('indexed: by when the file was last indexed (default: best match)'),
    }),
  async run(args, client, ctx) {
    const found = await pagesOf<Hit>('GET /search/code', 'items')(args, client);
    return withinReach(found, ctx.connection, (hit) => hit.repository?.full_name);
  },
});
