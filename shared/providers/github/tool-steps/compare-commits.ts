import * as z from 'zod';
import { gitRef, githubStep, needs, repoInput, repositoryOf } from './common';
import { changedFile, commit } from './outputs';

/**
 * A comparison can be huge (thousands of commits, 300 files with their patches), so the
 * step asks the code host for one page of commits and hands on a bounded window of the
 * files, each patch cut to a size; the answer says what was left out and how to read on.
 */

/** `base...head` sides: a branch, tag or SHA, optionally `owner:` before it for a fork of the same network. */
const side = (what: string) =>
  z
    .string()
    .max(300)
    .refine((v) => {
      const [, ref = v] = /^(?:[A-Za-z0-9-]{1,39}(?:\/[A-Za-z0-9_.-]{1,100})?:)?(.*)$/.exec(v) ?? [];
      return gitRef(what).safeParse(ref).success && !ref.includes('...');
    }, 'must be a branch, tag or commit SHA, optionally owner: before it')
    .describe(what);

const input = () =>
  z.strictObject({
    ...repoInput,
    base: side('The older side: branch, tag or commit SHA (owner:branch for a fork)'),
    head: side('The newer side: branch, tag or commit SHA (owner:branch for a fork)'),
    page: z.number().int().min(1).max(1000).default(1).describe('Which page of commits (default 1); the files come with page 1 only'),
    per_page: z.number().int().min(1).max(100).default(30).describe('Commits per page (default 30, at most 100)'),
    max_files: z
      .number()
      .int()
      .min(0)
      .max(300)
      .default(100)
      .describe('Files to return at most (default 100; the code host lists 300 at most)'),
    max_patch_chars: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .default(4000)
      .describe("Characters of each file's patch to return at most (default 4000; 0 leaves patches out)"),
  });

/** A compared file: its patch is cut at `max_patch_chars`. */
const comparedFile = () =>
  changedFile().extend({
    patch: z.string().optional().describe('The unified diff of the file, cut at max_patch_chars'),
    patch_truncated: z.boolean().optional().describe('True when the patch was cut (or the code host gave none, the file being too large)'),
  });

const output = () =>
  z.object({
    status: z.string().describe('ahead, behind, identical or diverged'),
    ahead_by: z.number().int(),
    behind_by: z.number().int(),
    total_commits: z.number().int().describe('Commits in head that are not in base, in all'),
    html_url: z.string().optional(),
    base_commit: commit().optional(),
    merge_base_commit: commit().optional().describe('The newest commit both sides share'),
    commits: z.array(commit()).describe('This page of the commits, oldest first'),
    files: z.array(comparedFile()).describe('The changed files (page 1 only), at most max_files'),
    files_left_out: z.number().int().describe('Changed files listed by the code host but beyond max_files'),
    next_page: z.number().int().nullable().describe('The page to ask for next to read more commits, null when this is the last'),
    read_on: z.string().nullable().describe('What was left out and how to read it, null when nothing was'),
  });

type Answer = {
  total_commits?: number;
  commits?: unknown[];
  files?: Array<{ patch?: string; changes?: number }>;
  [key: string]: unknown;
};

function windowed(files: NonNullable<Answer['files']>, maxFiles: number, maxPatch: number) {
  return files.slice(0, maxFiles).map(({ patch, ...file }) => {
    if (maxPatch === 0) return file;
    // The code host leaves the patch out of a file whose diff is too large: say so.
    if (patch === undefined) return { ...file, patch_truncated: (file.changes ?? 0) > 0 };
    return patch.length > maxPatch ? { ...file, patch: patch.slice(0, maxPatch), patch_truncated: true } : { ...file, patch };
  });
}

export const compareCommits = githubStep({
  id: 'github.compare_commits',
  title: 'Compare Commits',
  toolset: 'repos',
  description:
    'Compares two branches, tags or commits (`base...head`): how far head is ahead and behind, one page of the commits in head that are not in base (oldest first), and the changed files with their patches, each cut to `max_patch_chars`. Large comparisons come in windows: `next_page` and `read_on` say how to read further commits, and a file whose patch was cut can be read whole with github.get_repository_content. For one commit use github.get_commit.',
  output,
  permissions: needs({ contents: 'read' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
      owner: args.owner,
      repo: args.repo,
      basehead: `${args.base}...${args.head}`,
      page: args.page,
      per_page: args.per_page,
    });
    const answer = data as unknown as Answer;
    const total = answer.total_commits ?? 0;
    const allFiles = answer.files ?? [];
    const files = windowed(allFiles, args.max_files, args.max_patch_chars);
    const nextPage = args.page * args.per_page < total ? args.page + 1 : null;
    const leftOut = allFiles.length - files.length;
    const cut = files.filter((f) => 'patch_truncated' in f && f.patch_truncated).length;
    const notes = [
      nextPage === null ? '' : `${total} commits in all; call again with page ${nextPage} for the next ${args.per_page}`,
      leftOut === 0 ? '' : `${leftOut} more changed files: raise max_files (up to 300)`,
      cut === 0 ? '' : `${cut} patches cut: raise max_patch_chars, or read the file with github.get_repository_content`,
    ].filter(Boolean);
    return {
      ...answer,
      commits: answer.commits ?? [],
      files,
      files_left_out: leftOut,
      next_page: nextPage,
      read_on: notes.length > 0 ? `${notes.join('; ')}.` : null,
    };
  },
});
