import type { RepoRecord } from './github-world-records';

/** How the sandbox's pull requests get their diff: from the files their commits wrote. */

type Repo = RepoRecord;

/** A file's base64 content as lines; none for a file that did not exist. */
export const lines = (b64: string | null) => (b64 === null ? [] : Buffer.from(b64, 'base64').toString('utf8').split('\n'));

/** One file's change as a unified diff hunk: the changed middle with up to 3 lines of context around it. */
export function unifiedHunk(before: string[], after: string[]): { hunk: string; additions: number; deletions: number } {
  // A trailing newline leaves an empty last element: not a line of its own.
  const a = before.at(-1) === '' ? before.slice(0, -1) : before;
  const b = after.at(-1) === '' ? after.slice(0, -1) : after;
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const lead = Math.min(3, p);
  const tail = Math.min(3, s);
  const removed = a.slice(p, a.length - s);
  const added = b.slice(p, b.length - s);
  const oldCount = lead + removed.length + tail;
  const newCount = lead + added.length + tail;
  const start = (count: number) => (count === 0 ? p - lead : p - lead + 1);
  const body = [
    ...a.slice(p - lead, p).map((l) => ` ${l}`),
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    ...a.slice(a.length - s, a.length - s + tail).map((l) => ` ${l}`),
  ];
  const hunk = `@@ -${start(oldCount)},${oldCount} +${start(newCount)},${newCount} @@\n${body.join('\n')}`;
  return { hunk, additions: added.length, deletions: removed.length };
}

/** The commits reachable from `sha` by their parents. */
export function reachable(repo: Repo, sha: string | undefined): Set<string> {
  const seen = new Set<string>();
  const stack = sha ? [sha] : [];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(repo.commits.find((c) => c.sha === next)?.parents ?? []));
  }
  return seen;
}

export interface ChangedFile {
  path: string;
  /** The file did not exist before. */
  new: boolean;
  hunk: string;
  additions: number;
  deletions: number;
}

/** The changed files as `git diff` prints them. */
export function gitDiff(files: ChangedFile[]): string {
  return files
    .map((f) =>
      [
        `diff --git a/${f.path} b/${f.path}`,
        ...(f.new ? ['new file mode 100644', '--- /dev/null'] : [`--- a/${f.path}`]),
        `+++ b/${f.path}`,
        f.hunk,
        '',
      ].join('\n'),
    )
    .join('');
}
