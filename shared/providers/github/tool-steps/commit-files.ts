import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { GitHubClient } from '../octokit';
import {
  defaultBranch,
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
} from './common';

/**
 * Several files added, changed and deleted in one commit, through the Git database: read the
 * branch head and its tree, write a tree on top of it (binary files as blobs first), a commit
 * whose parent is that head, then move the branch without force. When someone else pushed
 * meanwhile the move is not a fast-forward and the code host refuses it: the step answers
 * `conflict`, and the commit it made is left unreferenced (nothing on the branch changed).
 */

const sha = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i, 'must be a full commit SHA');
const filePath = repoPath.refine((v) => v.length > 0 && !v.endsWith('/'), 'must name a file');
const maxFileChars = 5 * 1024 * 1024;

const change = z.union([
  z.strictObject({
    path: filePath,
    content: z.string().max(maxFileChars).describe('The whole new content of the file, as text (or base64 when `encoding` is base64)'),
    encoding: z
      .enum(['utf-8', 'base64'])
      .default('utf-8')
      .describe('How `content` is given: utf-8 text (default) or base64 for binary files'),
    executable: z.boolean().default(false).describe('Give the file the executable mode (100755)'),
  }),
  z.strictObject({
    path: filePath,
    delete: z.literal(true).describe('Delete the file at `path`'),
  }),
]);

const input = () =>
  z
    .strictObject({
      ...repoInput,
      branch: gitRef("Branch to commit to (default: the repository's default branch)").optional(),
      base_branch: gitRef('When `branch` does not exist yet, create it from the head of this branch').optional(),
      message: z.string().min(1).max(65536).describe('The commit message'),
      files: z
        .array(change)
        .min(1)
        .max(100)
        .describe('The files to write ({path, content}) or delete ({path, delete: true}), at most 100, each path once'),
      expected_head_sha: sha
        .optional()
        .describe('The commit the branch must be at now; when it has moved elsewhere the step answers conflict and writes nothing'),
      author: commitPerson.optional().describe('Author (default: the connected account)'),
      committer: commitPerson.optional().describe('Committer (default: the author)'),
      dryRun,
    })
    .refine((v) => new Set(v.files.map((f) => f.path)).size === v.files.length, { message: 'names a path twice', path: ['files'] });

type Args = z.output<ReturnType<typeof input>>;
type TreeEntry = { path: string; mode: '100644' | '100755'; type: 'blob'; sha?: string | null; content?: string };

function isNotFound(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { status?: unknown }).status === 404;
}

/** A 422 whose message matches `said` (the code host's "Validation Failed" names the reason there). */
function isRefused(e: unknown, said: RegExp): boolean {
  if (typeof e !== 'object' || e === null || (e as { status?: unknown }).status !== 422) return false;
  return said.test(String((e as { message?: unknown }).message ?? ''));
}

/** The SHA at the head of `branch`, or undefined when there is no such branch. */
async function headOf(client: GitHubClient, args: Args, branch: string): Promise<string | undefined> {
  try {
    const { data } = await client.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
      owner: args.owner,
      repo: args.repo,
      ref: `heads/${branch}`,
    });
    return data.object.sha;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** Where the commit goes: the branch, its head now, and whether the branch is to be made. */
async function target(client: GitHubClient, args: Args): Promise<{ branch: string; head: string; create: boolean }> {
  const branch = args.branch ?? (await defaultBranch(client, args));
  const head = await headOf(client, args, branch);
  if (head) {
    if (args.expected_head_sha && head.toLowerCase() !== args.expected_head_sha.toLowerCase())
      throw new AppError(
        'conflict',
        `Branch ${branch} is at ${head}, not at expected_head_sha ${args.expected_head_sha}; nothing was written`,
        {
          branch,
          head,
        },
      );
    return { branch, head, create: false };
  }
  if (!args.base_branch)
    throw new AppError('not_found', `Branch ${branch} does not exist in ${repositoryOf(args)}; give base_branch to create it`, { branch });
  const base = await headOf(client, args, args.base_branch);
  if (!base) throw new AppError('not_found', `Branch ${args.base_branch} (base_branch) does not exist in ${repositoryOf(args)}`);
  return { branch, head: base, create: true };
}

async function treeEntries(client: GitHubClient, args: Args): Promise<TreeEntry[]> {
  const entries: TreeEntry[] = [];
  for (const f of args.files) {
    if ('delete' in f) {
      entries.push({ path: f.path, mode: '100644', type: 'blob', sha: null });
      continue;
    }
    const mode = f.executable ? '100755' : '100644';
    if (f.encoding === 'utf-8') {
      entries.push({ path: f.path, mode, type: 'blob', content: f.content });
      continue;
    }
    // A tree entry's content is text: binary content goes in as a blob of its own first.
    const blob = args.dryRun
      ? { sha: `(a blob of ${Buffer.from(f.content, 'base64').length} bytes, written first)` }
      : (
          await client.request('POST /repos/{owner}/{repo}/git/blobs', {
            owner: args.owner,
            repo: args.repo,
            content: f.content,
            encoding: 'base64',
          })
        ).data;
    entries.push({ path: f.path, mode, type: 'blob', sha: blob.sha });
  }
  return entries;
}

const refusedMove = (branch: string, head: string) =>
  new AppError(
    'conflict',
    `Branch ${branch} moved while the commit was made (it is no longer at ${head}); nothing on the branch changed: read it again and retry`,
    { branch, head },
  );

export const commitFiles = githubStep({
  id: 'github.commit_files',
  title: 'Commit Files',
  toolset: 'git',
  description:
    'Adds, changes and deletes several files in one commit on a branch (optionally a new branch made from `base_branch`), through the Git database: one commit, whatever the number of files. The branch is moved only if nobody pushed to it meanwhile (never forced): otherwise the answer is `conflict` and the branch is as it was. For a single file github.create_or_update_file_contents or github.delete_file do the same in one call.',
  output: () =>
    z.object({
      branch: z.string(),
      created_branch: z.boolean().describe('True when the branch was made from base_branch by this commit'),
      parent: z.string().describe('The commit the branch was at before'),
      commit: z.object({
        sha: z.string(),
        html_url: z.string().optional(),
        message: z.string().optional(),
        tree: z.object({ sha: z.string() }).optional(),
      }),
      files: z.array(z.object({ path: z.string(), action: z.enum(['written', 'deleted']) })),
    }),
  permissions: needs({ contents: 'write' }, 'repo'),
  input,
  destructive: true,
  repositoryOf,
  async run(args, client) {
    const { owner, repo } = args;
    const { branch, head, create } = await target(client, args);
    const { data: parent } = await client.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { owner, repo, commit_sha: head });
    const tree = { owner, repo, base_tree: parent.tree.sha, tree: await treeEntries(client, args) };
    const files = args.files.map((f) => ({ path: f.path, action: 'delete' in f ? ('deleted' as const) : ('written' as const) }));
    if (args.dryRun)
      return {
        ...describeRequest(client, 'POST /repos/{owner}/{repo}/git/trees', tree),
        branch,
        created_branch: create,
        parent: head,
        files,
      };
    const { data: written } = await client.request('POST /repos/{owner}/{repo}/git/trees', tree);
    const { data: made } = await client.request(
      'POST /repos/{owner}/{repo}/git/commits',
      defined({ owner, repo, message: args.message, tree: written.sha, parents: [head], author: args.author, committer: args.committer }),
    );
    try {
      if (create) await client.request('POST /repos/{owner}/{repo}/git/refs', { owner, repo, ref: `refs/heads/${branch}`, sha: made.sha });
      else
        await client.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
          owner,
          repo,
          ref: `heads/${branch}`,
          sha: made.sha,
          force: false,
        });
    } catch (e) {
      // Moving the branch to a commit just made on its head fails only when it is no longer a
      // fast-forward (someone pushed); making the branch, when it was made meanwhile.
      if (isRefused(e, create ? /already exists/i : /./)) throw refusedMove(branch, head);
      throw e;
    }
    return { branch, created_branch: create, parent: head, commit: made, files };
  },
});
