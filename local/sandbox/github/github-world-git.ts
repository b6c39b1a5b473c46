import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from '../simulated-http';

type Json = Record<string, unknown>;

/**
 * The Git database of the sandbox's repositories (trees, blobs, the tree of each commit) and
 * the operations on it that the repos, git and search tools use: read a tree or a commit,
 * write blobs, trees and commits, move a branch (refused when it is not a fast-forward, as the
 * code host refuses it). A repository keeps it in its `git` record; a commit made before it
 * existed (by the contents API) reads as the repository's files as they were when its tree was
 * first asked for.
 */
export const repoGitSchema = z.object({
  /** By tree SHA: the files of the tree, path -> blob SHA (folders are implied by the paths). */
  trees: z.record(z.string(), z.record(z.string(), z.string())),
  /** By commit SHA: its tree's SHA. */
  commitTrees: z.record(z.string(), z.string()),
  /** By blob SHA: the content, base64. */
  blobs: z.record(z.string(), z.string()),
});
export type RepoGit = z.infer<typeof repoGitSchema>;

/** What of a repository of the world these answers read and change. */
export interface WorldRepo {
  owner: string;
  name: string;
  default_branch: string;
  commits: Array<{ sha: string; message: string; date: string; parents: string[] }>;
  files: Record<string, { content: string; sha: string }>;
  refs: Record<string, string>;
  releases: Json[];
  description: string | null;
  private: boolean;
  git?: RepoGit;
  pushed_at: string;
  updated_at: string;
}

/** What the world lends the answers kept in files of their own (its records, its renderings, its helpers). */
export interface WorldKit<R extends WorldRepo = WorldRepo> {
  login: string;
  base(): string;
  repos(): R[];
  find(owner: string, repo: string): R | undefined;
  shape(op: string, fullName?: string): Json;
  renderRepo(r: R): Json;
  renderCommit(r: R, c: R['commits'][number]): Json;
  renderRelease(r: R, release: Json): Json;
  headOf(r: R, ref: string): string | undefined;
  nextId(): number;
  addRepository(
    name: string,
    options: { owner?: string; ownerType?: 'User' | 'Organization'; description?: string | null; private?: boolean; at?: string },
  ): R;
}

export const gitSha = (text: string) => createHash('sha1').update(text).digest('hex');
export const notFound: SimulatedResponse = {
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
};
export const unprocessable = (message: string): SimulatedResponse => ({
  status: 422,
  body: { message, documentation_url: 'https://docs.github.com/rest/git' },
});

export function gitOf(r: WorldRepo): RepoGit {
  r.git ??= { trees: {}, commitTrees: {}, blobs: {} };
  return r.git;
}

/** Stores a tree (path -> blob SHA) and answers its SHA, the same for the same files. */
export function putTree(r: WorldRepo, files: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  const sha = gitSha(`tree ${JSON.stringify(sorted)}`);
  gitOf(r).trees[sha] = sorted;
  return sha;
}

/** The repository's files now, as a tree (their contents kept as blobs). */
function snapshot(r: WorldRepo): string {
  const git = gitOf(r);
  for (const f of Object.values(r.files)) git.blobs[f.sha] ??= f.content;
  return putTree(r, Object.fromEntries(Object.entries(r.files).map(([path, f]) => [path, f.sha])));
}

/** The tree SHA of a commit, recorded from the repository's files the first time it is asked for. */
export function treeOfCommit(r: WorldRepo, commit: string): string {
  const git = gitOf(r);
  const known = git.commitTrees[commit];
  if (known && git.trees[known]) return known;
  const sha = snapshot(r);
  git.commitTrees[commit] = sha;
  return sha;
}

/** A commit SHA (or a unique prefix of 7 or more), a branch or a tag, resolved to a commit of the repository. */
export function resolveCommit(kit: WorldKit, r: WorldRepo, ref: string): string | undefined {
  const bare = ref.replace(/^refs\//, '');
  const named = kit.headOf(r, bare) ?? r.refs[`tags/${bare.replace(/^tags\//, '')}`];
  if (named) return named;
  const release = r.releases.find((x) => x.tag_name === bare);
  if (release) return releaseCommit(kit, r, release);
  return bare.length >= 7 ? r.commits.find((c) => c.sha.startsWith(bare.toLowerCase()))?.sha : undefined;
}

/**
 * The commit a release's tag names when the tag has no ref of its own: the newest commit of
 * its target branch made no later than the release (the world makes a repository's first
 * release with its first commit).
 */
export function releaseCommit(kit: WorldKit, r: WorldRepo, release: Json): string | undefined {
  const head = kit.headOf(r, String(release.target_commitish ?? r.default_branch));
  if (!head) return undefined;
  const onTarget = ancestry(r, head);
  const at = String(release.created_at ?? '');
  return r.commits.find((c) => onTarget.has(c.sha) && c.date <= at)?.sha ?? head;
}

/** The files (path -> {content, sha}) at a branch, tag or commit; the repository's own files without one. */
export function filesAt(kit: WorldKit, r: WorldRepo, ref: string | null): WorldRepo['files'] {
  if (!ref) return r.files;
  const found = filesOf(kit, r, ref);
  const git = gitOf(r);
  return Object.fromEntries(Object.entries(found?.files ?? {}).map(([path, sha]) => [path, { content: git.blobs[sha] ?? '', sha }]));
}

/** A commit of `files` on top of the branch's head, and the branch moved to it. */
export function commitTree(
  r: WorldRepo,
  branch: string,
  files: Record<string, string>,
  message: string,
  now: string,
  parent: string,
): string {
  const tree = putTree(r, files);
  const sha = gitSha(`commit ${tree}\n${parent}\n${message}\n${now}`);
  r.commits.unshift({ sha, message, date: now, parents: [parent] });
  gitOf(r).commitTrees[sha] = tree;
  moveBranch(r, branch, sha, now);
  return sha;
}

/** The files of a tree named by a tree SHA, a commit SHA, a branch or a tag. */
export function filesOf(kit: WorldKit, r: WorldRepo, treeish: string): { sha: string; files: Record<string, string> } | undefined {
  const git = gitOf(r);
  const direct = git.trees[treeish];
  if (direct) return { sha: treeish, files: direct };
  const commit = resolveCommit(kit, r, treeish);
  if (commit) {
    const sha = treeOfCommit(r, commit);
    return { sha, files: git.trees[sha] ?? {} };
  }
  // A folder's tree, by the SHA a listing gave it.
  for (const files of Object.values(git.trees))
    for (const folder of folders(files)) {
      const inner = within(files, folder);
      if (folderSha(inner) === treeish) return { sha: treeish, files: inner };
    }
  return undefined;
}

function folders(files: Record<string, string>): string[] {
  const out = new Set<string>();
  for (const path of Object.keys(files)) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join('/'));
  }
  return [...out].sort();
}

const within = (files: Record<string, string>, folder: string) =>
  Object.fromEntries(
    Object.entries(files)
      .filter(([p]) => p.startsWith(`${folder}/`))
      .map(([p, s]) => [p.slice(folder.length + 1), s]),
  );
const folderSha = (files: Record<string, string>) =>
  gitSha(`tree ${JSON.stringify(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)))}`);

/** The entries of a tree as the code host lists them: the top level, or everything below with `recursive`. */
function treeEntries(kit: WorldKit, r: WorldRepo, files: Record<string, string>, recursive: boolean): Json[] {
  const fullName = `${r.owner}/${r.name}`;
  const git = gitOf(r);
  const blob = (path: string, sha: string): Json => ({
    path,
    mode: '100644',
    type: 'blob',
    sha,
    size: Buffer.from(git.blobs[sha] ?? '', 'base64').length,
    url: `${kit.base()}/repos/${fullName}/git/blobs/${sha}`,
  });
  const tree = (path: string): Json => {
    const sha = folderSha(within(files, path));
    return { path, mode: '040000', type: 'tree', sha, url: `${kit.base()}/repos/${fullName}/git/trees/${sha}` };
  };
  const dirs = folders(files).filter((d) => recursive || !d.includes('/'));
  const blobs = Object.entries(files).filter(([p]) => recursive || !p.includes('/'));
  return [...dirs.map(tree), ...blobs.map(([p, s]) => blob(p, s))].sort((a, b) => String(a.path).localeCompare(String(b.path)));
}

/** A git commit as `git/get-commit` and `git/create-commit` answer it. */
function renderGitCommit(kit: WorldKit, r: WorldRepo, c: WorldRepo['commits'][number], op: string): Json {
  const fullName = `${r.owner}/${r.name}`;
  const person = { name: 'The Octocat', email: `${kit.login}@users.noreply.github.com`, date: c.date };
  const tree = treeOfCommit(r, c.sha);
  return {
    ...kit.shape(op, fullName),
    sha: c.sha,
    node_id: `C_${c.sha.slice(0, 12)}`,
    url: `${kit.base()}/repos/${fullName}/git/commits/${c.sha}`,
    html_url: `https://github.com/${fullName}/commit/${c.sha}`,
    author: person,
    committer: person,
    message: c.message,
    tree: { sha: tree, url: `${kit.base()}/repos/${fullName}/git/trees/${tree}` },
    parents: c.parents.map((sha) => ({
      sha,
      url: `${kit.base()}/repos/${fullName}/git/commits/${sha}`,
      html_url: `https://github.com/${fullName}/commit/${sha}`,
    })),
  };
}

/** The commits reachable from `sha` (itself included), by their parents. */
export function ancestry(r: WorldRepo, sha: string): Set<string> {
  const seen = new Set<string>();
  const byId = new Map(r.commits.map((c) => [c.sha, c]));
  const todo = [sha];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(byId.get(next)?.parents ?? []));
  }
  return seen;
}

/** The branch moves to `sha`; on the default branch the repository's files become that commit's. */
export function moveBranch(r: WorldRepo, branch: string, sha: string, now: string): void {
  r.refs[`heads/${branch}`] = sha;
  r.pushed_at = now;
  r.updated_at = now;
  if (branch !== r.default_branch) return;
  const git = gitOf(r);
  const files = git.trees[treeOfCommit(r, sha)] ?? {};
  r.files = Object.fromEntries(Object.entries(files).map(([path, blob]) => [path, { content: git.blobs[blob] ?? '', sha: blob }]));
}

/** `POST .../git/trees`: the base tree with the entries written over it (`sha: null` deletes a path). */
function writeTree(kit: WorldKit, repo: WorldRepo, input: Json): SimulatedResponse {
  const git = gitOf(repo);
  const base = input.base_tree === undefined ? {} : git.trees[String(input.base_tree)];
  if (!base) return unprocessable('base_tree is not a valid tree oid');
  const files = { ...base };
  for (const entry of (input.tree ?? []) as Json[]) {
    const path = String(entry.path ?? '');
    if (entry.sha === null) {
      if (!(path in files)) return unprocessable(`GitRPC::BadObjectState: ${path} is not in the tree`);
      delete files[path];
    } else if (typeof entry.content === 'string') {
      const base64 = Buffer.from(entry.content, 'utf8').toString('base64');
      const sha = gitSha(`blob ${base64}`);
      git.blobs[sha] = base64;
      files[path] = sha;
    } else if (typeof entry.sha === 'string' && git.blobs[entry.sha] !== undefined) files[path] = entry.sha;
    else return unprocessable(`tree.sha ${String(entry.sha)} is not a valid blob`);
  }
  const sha = putTree(repo, files);
  return {
    status: 201,
    body: {
      sha,
      url: `${kit.base()}/repos/${repo.owner}/${repo.name}/git/trees/${sha}`,
      tree: treeEntries(kit, repo, files, false),
      truncated: false,
    },
  };
}

/** Answers of the Git database operations, over the world's repositories. */
export function gitAnswers(
  kit: WorldKit,
  now: () => string,
  inRepo: (then: (repo: WorldRepo, r: MatchedRequest) => SimulatedResponse) => OperationResponder,
): Record<string, OperationResponder> {
  const body = (r: MatchedRequest) => (r.json ?? {}) as Json;
  const fullName = (repo: WorldRepo) => `${repo.owner}/${repo.name}`;
  const renderRef = (repo: WorldRepo, ref: string, sha: string): Json => ({
    ref: `refs/${ref}`,
    node_id: Buffer.from(`03:Ref:${fullName(repo)}:refs/${ref}`).toString('base64'),
    url: `${kit.base()}/repos/${fullName(repo)}/git/refs/${ref}`,
    object: { type: 'commit', sha, url: `${kit.base()}/repos/${fullName(repo)}/git/commits/${sha}` },
  });
  return {
    'git/get-tree': inRepo((repo, r) => {
      const found = filesOf(kit, repo, r.params.tree_sha ?? '');
      if (!found) return notFound;
      const tree = treeEntries(kit, repo, found.files, r.query.has('recursive'));
      return { body: { sha: found.sha, url: `${kit.base()}/repos/${fullName(repo)}/git/trees/${found.sha}`, tree, truncated: false } };
    }),
    'git/get-commit': inRepo((repo, r) => {
      const c = repo.commits.find((x) => x.sha === r.params.commit_sha);
      return c ? { body: renderGitCommit(kit, repo, c, 'git/get-commit') } : notFound;
    }),
    'git/create-blob': inRepo((repo, r) => {
      const { content, encoding } = body(r);
      const base64 = encoding === 'base64' ? String(content) : Buffer.from(String(content ?? ''), 'utf8').toString('base64');
      const sha = gitSha(`blob ${base64}`);
      gitOf(repo).blobs[sha] = base64;
      return { status: 201, body: { sha, url: `${kit.base()}/repos/${fullName(repo)}/git/blobs/${sha}` } };
    }),
    'git/create-tree': inRepo((repo, r) => writeTree(kit, repo, body(r))),
    'git/create-commit': inRepo((repo, r) => {
      const input = body(r);
      const tree = String(input.tree ?? '');
      const parents = ((input.parents ?? []) as unknown[]).map(String);
      if (!gitOf(repo).trees[tree]) return unprocessable('Tree SHA does not exist');
      if (parents.some((p) => !repo.commits.some((c) => c.sha === p)))
        return unprocessable('Parent SHA does not exist or is not a commit object');
      const at = now();
      const sha = gitSha(`commit ${tree}\n${parents.join(' ')}\n${String(input.message)}\n${kit.nextId()}`);
      const c = { sha, message: String(input.message ?? ''), date: at, parents };
      // Not on any branch yet: git/update-ref (or git/create-ref) puts it on one.
      repo.commits.unshift(c);
      gitOf(repo).commitTrees[sha] = tree;
      return { status: 201, body: renderGitCommit(kit, repo, c, 'git/create-commit') };
    }),
    'git/update-ref': inRepo((repo, r) => {
      const ref = (r.params.ref ?? '').replace(/^refs\//, '');
      const current = repo.refs[ref];
      const sha = String(body(r).sha ?? '');
      if (!current) return unprocessable('Reference does not exist');
      if (!repo.commits.some((c) => c.sha === sha)) return unprocessable('Object does not exist');
      // As the code host: without force, only a fast-forward (the new commit descends from the old head).
      if (body(r).force !== true && !ancestry(repo, sha).has(current)) return unprocessable('Update is not a fast forward');
      if (ref.startsWith('heads/')) moveBranch(repo, ref.slice('heads/'.length), sha, now());
      else repo.refs[ref] = sha;
      return { body: renderRef(repo, ref, sha) };
    }),
  };
}
