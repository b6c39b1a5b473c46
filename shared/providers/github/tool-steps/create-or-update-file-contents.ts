import * as z from 'zod';
import { InvalidInputError } from '../../../domain/errors';
import type { GitHubClient } from '../octokit';
import {
  defined,
  describeRequest,
  dryRun,
  gitRef,
  githubStep,
  repoInput,
  repoPath,
  repositoryOf,
  needs,
  commitPerson,
  blobShaOf,
} from './common';

const input = () =>
  z.strictObject({
    ...repoInput,
    path: repoPath.refine((v) => v.length > 0, 'must name a file'),
    message: z.string().min(1).max(65536).describe('The commit message'),
    content: z
      .string()
      .max(50 * 1024 * 1024)
      .describe('The new file content, as text (or base64 when `encoding` is base64)'),
    encoding: z
      .enum(['utf-8', 'base64'])
      .default('utf-8')
      .describe('How `content` is given: utf-8 text (default) or base64 for binary files'),
    branch: gitRef('Branch to commit to (default: the default branch)').optional(),
    sha: blobShaOf('replaced'),
    committer: commitPerson.optional().describe('Committer (default: the connected account)'),
    author: commitPerson.optional().describe('Author (default: the committer)'),
    dryRun,
  });

type Args = z.output<ReturnType<typeof input>>;

function isNotFound(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { status?: unknown }).status === 404;
}

/**
 * The blob SHA of the file now at `path` on the branch being written, or undefined when
 * there is none. Read on the same branch as the write: the SHA of the default branch's
 * copy would make the code host refuse (or, worse, the peers' steps overwrite blindly).
 */
async function currentSha(client: GitHubClient, args: Args): Promise<string | undefined> {
  try {
    const { data } = await client.request(
      'GET /repos/{owner}/{repo}/contents/{path}',
      defined({ owner: args.owner, repo: args.repo, path: args.path, ref: args.branch }),
    );
    if (Array.isArray(data))
      throw new InvalidInputError([{ field: 'input.path', message: `is a folder in ${args.owner}/${args.repo}; name a file` }]);
    if (data.type !== 'file') throw new InvalidInputError([{ field: 'input.path', message: `is a ${data.type}, not a file` }]);
    return data.sha;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export const createOrUpdateFileContents = githubStep({
  id: 'github.create_or_update_file_contents',
  title: 'Create or Update File Contents',
  toolset: 'repos',
  description:
    "Creates a file, or replaces its content, in one commit. Without `sha` the step looks up the file's current SHA on the same branch it writes to, so updates on non-default branches work.",
  output: () =>
    z.object({
      created: z.boolean().describe('True for a new file, false when an existing one was replaced'),
      content: z
        .object({
          name: z.string().optional(),
          path: z.string(),
          sha: z.string(),
          size: z.number().int().optional(),
          html_url: z.string().optional(),
          download_url: z.string().nullable().optional(),
        })
        .nullable(),
      commit: z.object({
        sha: z.string(),
        message: z.string().optional(),
        html_url: z.string().optional(),
        author: z.object({ name: z.string().optional(), email: z.string().optional(), date: z.string().optional() }).optional(),
        committer: z.object({ name: z.string().optional(), email: z.string().optional(), date: z.string().optional() }).optional(),
      }),
    }),
  permissions: needs({ contents: 'write' }, 'repo'),
  input,
  destructive: true,
  repositoryOf,
  async run(args, client) {
    const sha = args.sha ?? (await currentSha(client, args));
    const params = defined({
      owner: args.owner,
      repo: args.repo,
      path: args.path,
      message: args.message,
      content: args.encoding === 'base64' ? args.content : Buffer.from(args.content, 'utf8').toString('base64'),
      branch: args.branch,
      sha,
      committer: args.committer,
      author: args.author,
    });
    if (args.dryRun) return { ...describeRequest(client, 'PUT /repos/{owner}/{repo}/contents/{path}', params), created: sha === undefined };
    const { data } = await client.request('PUT /repos/{owner}/{repo}/contents/{path}', params);
    return { created: sha === undefined, content: data.content, commit: data.commit };
  },
});
