import * as z from 'zod';
import { assertRepositoryAllowed } from '../../../domain/allow-list';
import { defined, githubStep, needs, owner, repo, repoInput, repositoryOf } from './common';
import { repository } from './outputs';

export const createFork = githubStep({
  id: 'github.create_fork',
  title: 'Create Fork',
  toolset: 'repos',
  description:
    'Forks a repository into the connected account, or into an organization given as `organization`, and returns the new repository. The code host copies the contents in the background: the fork may take a few moments before its files and branches can be read. Forking a repository the account has already forked returns the existing fork.',
  output: repository,
  permissions: needs({ administration: 'write', contents: 'read' }, 'repo'),
  input: () =>
    z.strictObject({
      ...repoInput,
      organization: owner.optional().describe('Fork into this organization instead of the connected account'),
      name: repo.optional().describe('A name for the fork (default: the name of the repository forked)'),
      default_branch_only: z.boolean().optional().describe('Copy the default branch only (default: every branch)'),
    }),
  repositoryOf,
  async run(args, client, ctx) {
    // A connection limited to given repositories may fork only into one of them.
    assertRepositoryAllowed(ctx.connection, `${args.organization ?? ctx.connection.accountLogin}/${args.name ?? args.repo}`);
    const { data } = await client.request(
      'POST /repos/{owner}/{repo}/forks',
      defined({
        owner: args.owner,
        repo: args.repo,
        organization: args.organization,
        name: args.name,
        default_branch_only: args.default_branch_only,
      }),
    );
    return data;
  },
});
