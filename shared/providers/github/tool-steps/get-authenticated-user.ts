import * as z from 'zod';
import { githubStep } from './common';

export const getAuthenticatedUser = githubStep({
  id: 'github.get_authenticated_user',
  title: 'Get Authenticated User',
  description:
    'Answers who the connection acts as: the login, name and type of the connected account. Use it to tell your own comments, reviews and mentions from others (a new_mention event names this login), or before acting on "my" pull requests. For another person\'s rights on a repository use get_collaborator_permission.',
  output: () =>
    z.object({
      login: z.string(),
      id: z.number().int(),
      type: z.string().optional().describe('User or Bot'),
      name: z.string().nullable().optional(),
      email: z.string().nullable().optional(),
      html_url: z.string().optional(),
      avatar_url: z.string().optional(),
      company: z.string().nullable().optional(),
      created_at: z.string().optional(),
    }),
  permissions: { fineGrained: {}, oauthScopes: [] },
  toolset: 'context',
  input: () => z.strictObject({}),
  async run(_args, client) {
    const { data } = await client.request('GET /user');
    return data;
  },
});
