import * as z from 'zod';
import { AppError, InvalidInputError } from '../../../domain/errors';
import type { GitHubClient } from '../octokit';
import {
  defined,
  describeRequest,
  dryRun,
  gitRef,
  githubStep,
  needs,
  repoInput,
  repoPath,
  repositoryOf,
  commitPerson,
  blobShaOf,
} from './common';

const input = () =>
  z.strictObject({
    ...repoInput,
    path: repoPath.refine((v) => v.length > 0, 'must name a file'),
    message: z.string().min(1).max(65536).describe('The commit message'),
    branch: gitRef('Branch to delete the file on (default: the default branch)').optional(),
    sha: blobShaOf('deleted'),
    committer: commitPerson.optional().describe('Committer (default: the connected account)'),
    author: commitPerson.optional().describe('Author (default: the committer)'),
    dryRun,
  });

type Args = z.output<ReturnType<typeof input>>;

/** The blob SHA of the file at `path` on the branch the delete is made on; a folder or nothing there is the caller's mistake. */
async function blobSha(client: GitHubClient, args: Args): Promise<string> {
  const where = `${args.path} on ${args.branch ?? 'the default branch'} of ${repositoryOf(args)}`;
  let data: unknown;
  try {
    ({ data } = await client.request(
      'GET /repos/{owner}/{repo}/contents/{path}',
      defined({ owner: args.owner, repo: args.repo, path: args.path, ref: args.branch }),
    ));
  } catch (e) {
    if ((e as { status?: unknown } | null)?.status === 404)
      throw new AppError('not_found', `There is no file ${where}`, { path: args.path });
    throw e;
  }
  const entry = data as { type?: string; sha?: string };
  if (Array.isArray(data) || entry.type !== 'file' || !entry.sha)
    throw new InvalidInputError([
      { field: 'input.path', message: `${where} is ${Array.isArray(data) ? 'a folder' : `a ${entry.type}`}, not a file` },
    ]);
  return entry.sha;
}

export const deleteFile = githubStep({
  id: 'github.delete_file',
  title: 'Delete File',
  toolset: 'repos',
  description:
    "Deletes one file in a commit of its own on a branch (the default branch unless `branch` is given). Without `sha` the step looks up the file's SHA on that branch; `not_found` when there is no file. To delete or change several files in one commit use github.commit_files.",
  output: () =>
    z.object({
      deleted: z.literal(true),
      path: z.string(),
      commit: z.object({
        sha: z.string(),
        message: z.string().optional(),
        html_url: z.string().optional(),
        parents: z.array(z.object({ sha: z.string() })).optional(),
      }),
    }),
  permissions: needs({ contents: 'write' }, 'repo'),
  input,
  destructive: true,
  repositoryOf,
  async run(args, client) {
    const params = defined({
      owner: args.owner,
      repo: args.repo,
      path: args.path,
      message: args.message,
      sha: args.sha ?? (await blobSha(client, args)),
      branch: args.branch,
      committer: args.committer,
      author: args.author,
    });
    if (args.dryRun) return { ...describeRequest(client, 'DELETE /repos/{owner}/{repo}/contents/{path}', params), path: args.path };
    const { data } = await client.request('DELETE /repos/{owner}/{repo}/contents/{path}', params);
    return { deleted: true, path: args.path, commit: data.commit };
  },
});
