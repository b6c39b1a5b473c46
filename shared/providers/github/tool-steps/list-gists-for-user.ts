import * as z from 'zod';
import { collectPages, defined, githubStep, owner, pageInput, needs } from './common';
import { gist, listed } from './outputs';

const input = () =>
  z.strictObject({
    username: owner
      .optional()
      .describe("The user whose public gists to list (default: the connected account's gists, secret ones included)"),
    since: z.iso.datetime({ offset: true }).optional().describe('Only gists updated after this time (ISO 8601)'),
    ...pageInput,
  });

export const listGistsForUser = githubStep({
  id: 'github.list_gists_for_user',
  title: 'List Gists for a User',
  toolset: 'gists',
  description:
    "Lists a user's public gists, or, without `username`, the connected account's own gists (secret ones included), following pages up to `max_items`.",
  output: () => listed(gist()),
  permissions: needs({}),
  input,
  async run(args, client) {
    const { max_items, username, ...params } = args;
    return username === undefined
      ? collectPages(client, 'GET /gists', defined(params), max_items)
      : collectPages(client, 'GET /users/{username}/gists', defined({ ...params, username }), max_items);
  },
});
