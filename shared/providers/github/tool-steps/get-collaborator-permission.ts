import * as z from 'zod';
import { githubStep, needs, owner, repoInput, repositoryOf } from './common';
import { account } from './outputs';

export const getCollaboratorPermission = githubStep({
  id: 'github.get_collaborator_permission',
  title: 'Get Collaborator Permission',
  description:
    "Answers what a person may do in a repository: their permission (admin, write, read or none) and role (admin, maintain, write, triage, read, or a custom role). Use it before acting on a request from someone (a new_collaborator or new_mention event's sender), e.g. to merge only for those who can push. For the connected account itself use get_authenticated_user and get_repository's permissions.",
  output: () =>
    z.object({
      permission: z.string().describe('admin, write, read or none'),
      role_name: z.string().optional().describe('admin, maintain, write, triage, read or a custom role'),
      user: account().nullable().optional(),
    }),
  permissions: needs({ metadata: 'read' }, 'repo'),
  toolset: 'users',
  input: () => z.strictObject({ ...repoInput, username: owner.describe('The login of the person') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', args);
    return data;
  },
});
