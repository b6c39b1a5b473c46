import * as z from 'zod';
import { gitRef, githubStep, needs, repoInput, repoPath, repositoryOf } from './common';

/**
 * A recursive tree of a large repository is tens of thousands of entries (the code host
 * stops at 100,000 or 7 MB and says `truncated`); the step hands on a window of it, after an
 * optional folder filter, and says where the next window starts.
 */

const input = () =>
  z.strictObject({
    ...repoInput,
    tree_sha: gitRef('The tree to read: a branch or tag name, a commit SHA or a tree SHA'),
    recursive: z.boolean().default(false).describe('List the whole tree below, not only the top level (default false)'),
    path_prefix: repoPath
      .optional()
      .describe('Only entries under this folder, e.g. src/ (with recursive: true); the paths stay relative to the tree'),
    offset: z.number().int().min(0).default(0).describe("Skip this many entries (a previous answer's next_offset)"),
    max_entries: z.number().int().min(1).max(10_000).default(1000).describe('Entries to return at most (default 1000, at most 10,000)'),
  });

const entry = () =>
  z.object({
    path: z.string(),
    mode: z.string().describe('100644 file, 100755 executable, 040000 folder, 160000 submodule, 120000 symlink'),
    type: z.string().describe('blob (a file), tree (a folder) or commit (a submodule)'),
    sha: z.string(),
    size: z.number().int().optional().describe('Bytes, for files'),
  });

type Entry = { path?: string };

export const getTree = githubStep({
  id: 'github.get_tree',
  title: 'Get Tree',
  toolset: 'git',
  description:
    "Lists the files and folders of a repository at a branch, tag or commit as git sees them (path, mode, type, SHA, size): the top level, or with `recursive` the whole tree, in windows of `max_entries` (`next_offset` says where the next starts; `path_prefix` keeps one folder). `truncated` is the code host's own: the tree was too large for it to list in full, so read folders one by one (their tree SHAs). For one file's content use github.get_repository_content.",
  output: () =>
    z.object({
      sha: z.string().describe('The SHA of the tree read'),
      truncated: z.boolean().describe('True when the code host itself did not list the whole tree (over 100,000 entries or 7 MB)'),
      entries: z.array(entry()),
      count: z.number().int(),
      total: z.number().int().describe('Entries the code host listed (under path_prefix, when given)'),
      next_offset: z.number().int().nullable().describe('The offset of the next window, null when this is the last'),
    }),
  permissions: needs({ contents: 'read' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', {
      owner: args.owner,
      repo: args.repo,
      tree_sha: args.tree_sha,
      // The code host reads any value of `recursive` as true, "false" included: sent only when wanted.
      ...(args.recursive ? { recursive: '1' } : {}),
    });
    const prefix = args.path_prefix ? `${args.path_prefix.replace(/\/+$/, '')}/` : '';
    const all = ((data.tree ?? []) as Entry[]).filter((e) => prefix === '' || (e.path ?? '').startsWith(prefix));
    const entries = all.slice(args.offset, args.offset + args.max_entries);
    const end = args.offset + entries.length;
    return {
      sha: data.sha,
      truncated: data.truncated,
      entries,
      count: entries.length,
      total: all.length,
      next_offset: end < all.length ? end : null,
    };
  },
});
