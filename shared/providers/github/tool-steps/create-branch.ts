import * as z from 'zod';
import { defaultBranch, gitRef, githubStep, repoInput, repositoryOf, needs } from './common';

const sha = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i, 'must be a full commit SHA');

const input = () =>
  z
    .strictObject({
      ...repoInput,
      ref: gitRef('Name of the new branch, e.g. feature/login (a leading refs/heads/ is accepted)').transform((v) =>
        v.replace(/^refs\/heads\//, ''),
      ),
      from_branch: gitRef("Branch to start from (default: the repository's default branch)").optional(),
      sha: sha.optional().describe('Commit to start from instead of a branch head'),
    })
    .refine((v) => !(v.sha && v.from_branch), { message: 'give either sha or from_branch, not both', path: ['sha'] });

export const createBranch = githubStep({
  id: 'github.create_branch',
  title: 'Create Branch',
  toolset: 'repos',
  description:
    "Creates a branch. It starts from the head of the repository's default branch unless `from_branch` or `sha` says otherwise (the peers' versions start from whatever branch happened to be first).",
  output: () =>
    z.object({
      ref: z.string().describe('refs/heads/<name>'),
      sha: z.string().describe('The commit the branch points at'),
      from: z.string().optional().describe('The branch or commit it started from'),
      object: z.object({ sha: z.string(), type: z.string().optional(), url: z.string().optional() }),
      url: z.string().optional(),
    }),
  permissions: needs({ contents: 'write' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const { owner, repo } = args;
    let from = args.sha;
    let startSha = args.sha;
    if (!startSha) {
      from = args.from_branch ?? (await defaultBranch(client, args));
      const { data } = await client.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner, repo, ref: `heads/${from}` });
      startSha = data.object.sha;
    }
    const { data } = await client.request('POST /repos/{owner}/{repo}/git/refs', {
      owner,
      repo,
      ref: `refs/heads/${args.ref}`,
      sha: startSha,
    });
    return { ref: data.ref, sha: data.object.sha, from, object: data.object, url: data.url };
  },
});
