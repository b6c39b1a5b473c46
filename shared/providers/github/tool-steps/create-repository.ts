import * as z from 'zod';
import { assertRepositoryAllowed } from '../../../domain/allow-list';
import { defined, githubStep, owner, repo, needs } from './common';
import { repository } from './outputs';

const input = () =>
  z
    .strictObject({
      name: repo.describe('The name of the new repository'),
      org: owner.optional().describe('Create it in this organization instead of the connected account'),
      description: z.string().max(350).optional().describe('A short description of the repository'),
      homepage: z.url().optional().describe('A URL with more information about the repository'),
      private: z.boolean().optional().describe('Whether the repository is private (default: public)'),
      visibility: z.enum(['public', 'private']).optional().describe('public or private (same as `private`)'),
      has_issues: z.boolean().optional().describe('Enable issues'),
      has_projects: z.boolean().optional().describe('Enable projects'),
      has_wiki: z.boolean().optional().describe('Enable the wiki'),
      has_discussions: z
        .boolean()
        .optional()
        .describe('Enable discussions (personal repositories only: the code host does not take it for organizations)'),
      is_template: z.boolean().optional().describe('Make it a template repository'),
      auto_init: z.boolean().optional().describe('Create an initial commit with an empty README'),
      gitignore_template: z.string().max(100).optional().describe('A .gitignore template to apply, e.g. Node'),
      license_template: z.string().max(100).optional().describe('An open-source license template keyword, e.g. mit'),
    })
    .refine((v) => !(v.org && v.has_discussions !== undefined), {
      message: 'cannot be set when creating in an organization; enable discussions afterwards',
      path: ['has_discussions'],
    });

export const createRepository = githubStep({
  id: 'github.create_repository',
  title: 'Create Repository',
  toolset: 'repos',
  description: 'Creates a repository in the connected account, or in an organization when `org` is given.',
  output: repository,
  permissions: needs({ administration: 'write' }, 'repo'),
  input,
  async run(args, client, ctx) {
    const { org, visibility, ...fields } = args;
    // A connection limited to given repositories may only create one of them.
    assertRepositoryAllowed(ctx.connection, `${org ?? ctx.connection.accountLogin}/${args.name}`);
    if (org) {
      const { data } = await client.request('POST /orgs/{org}/repos', { org, ...defined({ ...fields, visibility }) });
      return data;
    }
    const { data } = await client.request(
      'POST /user/repos',
      defined({ ...fields, private: fields.private ?? (visibility ? visibility !== 'public' : undefined) }),
    );
    return data;
  },
});
