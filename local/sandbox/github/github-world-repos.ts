import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from '../simulated-http';
import {
  ancestry,
  filesOf,
  gitAnswers,
  gitOf,
  notFound,
  commitTree,
  resolveCommit,
  treeOfCommit,
  type WorldKit,
  type WorldRepo,
} from './github-world-git';

type Json = Record<string, unknown>;

/**
 * The sandbox's answers for the repos, git and search tools, over the world's repositories
 * (github-world.ts): branches and tags from the refs, releases, comparisons by the commits'
 * parents with the files that differ between the trees, a file deleted in a commit, forks
 * (a copy of the repository's files, commits and branches in the account), and search over
 * the files, commit messages and repositories the world holds. Lists page with `Link`
 * headers, as the code host pages them.
 */
export function repoWorldAnswers(kit: WorldKit, now: () => string): Record<string, OperationResponder> {
  const inRepo =
    (then: (repo: WorldRepo, r: MatchedRequest) => SimulatedResponse): OperationResponder =>
    (r) => {
      const repo = kit.find(r.params.owner ?? '', r.params.repo ?? '');
      return repo ? then(repo, r) : notFound;
    };
  const body = (r: MatchedRequest) => (r.json ?? {}) as Json;
  const published = (repo: WorldRepo) => repo.releases.filter((x) => x.draft !== true);
  const byTag = (repo: WorldRepo, tag: string) => published(repo).find((x) => x.tag_name === tag);
  return {
    ...gitAnswers(kit, now, inRepo),
    'repos/list-branches': inRepo((repo, r) => {
      const branches = Object.entries(repo.refs)
        .filter(([ref]) => ref.startsWith('heads/'))
        .map(([ref, sha]) => ({
          name: ref.slice('heads/'.length),
          commit: { sha, url: `${kit.base()}/repos/${fullName(repo)}/commits/${sha}` },
          protected: false,
        }))
        .filter((b) => r.query.get('protected') !== String(!b.protected))
        .sort((a, b) => a.name.localeCompare(b.name));
      return paged(kit, branches, r);
    }),
    'repos/list-tags': inRepo((repo, r) => paged(kit, tagsOf(kit, repo), r)),
    'repos/get-release-by-tag': inRepo((repo, r) => {
      const release = byTag(repo, r.params.tag ?? '');
      return release ? { body: kit.renderRelease(repo, release) } : notFound;
    }),
    'repos/get-latest-release': inRepo((repo) => {
      const full = published(repo).filter((x) => x.prerelease !== true);
      const latest = full.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))[0];
      return latest ? { body: kit.renderRelease(repo, latest) } : notFound;
    }),
    'repos/compare-commits-with-basehead': inRepo((repo, r) => compare(kit, repo, r)),
    'repos/delete-file': inRepo((repo, r) => deleteFile(kit, repo, r, now())),
    'repos/create-fork': inRepo((repo, r) => {
      const input = body(r);
      const owner = typeof input.organization === 'string' ? input.organization : kit.login;
      const name = typeof input.name === 'string' ? input.name : repo.name;
      // As the code host: forking again answers the fork there is.
      const existing = kit.find(owner, name);
      if (existing) return { status: 202, body: { ...kit.renderRepo(existing), fork: true } };
      const fork = kit.addRepository(name, {
        owner,
        ownerType: owner === kit.login ? 'User' : 'Organization',
        description: repo.description,
        private: repo.private,
        at: now(),
      });
      copyInto(repo, fork, input.default_branch_only === true);
      return { status: 202, body: { ...kit.renderRepo(fork), fork: true } };
    }),
    ...searchAnswers(kit),
  };
}

/** `DELETE .../contents/{path}` on a branch: a commit of the branch's tree without the file (its blob SHA must match). */
function deleteFile(kit: WorldKit, repo: WorldRepo, r: MatchedRequest, at: string): SimulatedResponse {
  const input = (r.json ?? {}) as Json;
  const path = r.params.path ?? '';
  const branch = typeof input.branch === 'string' ? input.branch : repo.default_branch;
  const parent = kit.headOf(repo, branch);
  if (!parent) return { status: 404, body: { message: `Branch ${branch} not found` } };
  const files = { ...(filesOf(kit, repo, parent)?.files ?? {}) };
  const blob = files[path];
  if (!blob) return notFound;
  if (input.sha !== blob) return { status: 409, body: { message: `${path} does not match ${String(input.sha ?? '')}` } };
  delete files[path];
  const sha = commitTree(repo, branch, files, String(input.message ?? ''), at, parent);
  const full = fullName(repo);
  const tree = gitOf(repo).commitTrees[sha];
  return {
    body: {
      content: null,
      commit: {
        ...((kit.shape('repos/delete-file', full).commit ?? {}) as Json),
        sha,
        node_id: `C_${sha.slice(0, 12)}`,
        url: `${kit.base()}/repos/${full}/git/commits/${sha}`,
        html_url: `https://github.com/${full}/commit/${sha}`,
        message: String(input.message ?? ''),
        tree: { sha: tree, url: `${kit.base()}/repos/${full}/git/trees/${tree}` },
        parents: [
          {
            sha: parent,
            url: `${kit.base()}/repos/${full}/git/commits/${parent}`,
            html_url: `https://github.com/${full}/commit/${parent}`,
          },
        ],
      },
    },
  };
}

/** A list page with `Link` headers to the next and last pages (`per_page` default 30, at most 100). */
function paged(kit: WorldKit, items: Json[], r: MatchedRequest): SimulatedResponse {
  const perPage = Math.min(100, Math.max(1, Number(r.query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(r.query.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const q = new URLSearchParams(r.query);
    q.set('page', String(n));
    return `<${kit.base()}${r.path}?${q.toString()}>; rel="${rel}"`;
  };
  const headers: Record<string, string> = page < last ? { link: [link(page + 1, 'next'), link(last, 'last')].join(', ') } : {};
  return { body: items.slice((page - 1) * perPage, page * perPage), headers };
}

/** Tags from the refs, and the tag of every release (at its target's head) that has no ref of its own. */
function tagsOf(kit: WorldKit, repo: WorldRepo): Json[] {
  const names = new Map<string, string>();
  for (const [ref, sha] of Object.entries(repo.refs)) if (ref.startsWith('tags/')) names.set(ref.slice('tags/'.length), sha);
  for (const release of repo.releases) {
    const tag = String(release.tag_name);
    const sha = kit.headOf(repo, String(release.target_commitish ?? repo.default_branch));
    if (!names.has(tag) && sha) names.set(tag, sha);
  }
  const full = `${repo.owner}/${repo.name}`;
  return [...names]
    .sort(([a], [b]) => b.localeCompare(a))
    .map(([name, sha]) => ({
      name,
      commit: { sha, url: `${kit.base()}/repos/${full}/commits/${sha}` },
      zipball_url: `${kit.base()}/repos/${full}/zipball/refs/tags/${name}`,
      tarball_url: `${kit.base()}/repos/${full}/tarball/refs/tags/${name}`,
      node_id: Buffer.from(`03:Ref:${full}:refs/tags/${name}`).toString('base64'),
    }));
}

/** A unified diff of a whole text file: every old line removed, every new one added. */
function patchOf(before: string | undefined, after: string | undefined): string {
  const lines = (b64: string | undefined) =>
    b64 === undefined
      ? []
      : Buffer.from(b64, 'base64')
          .toString('utf8')
          .split('\n')
          .filter((l, i, all) => l !== '' || i < all.length - 1);
  const old = lines(before);
  const now = lines(after);
  return [
    `@@ -${old.length ? 1 : 0},${old.length} +${now.length ? 1 : 0},${now.length} @@`,
    ...old.map((l) => `-${l}`),
    ...now.map((l) => `+${l}`),
  ].join('\n');
}

/** `base...head` as the code host compares it: commits by ancestry, files by the trees of the merge base and head. */
function compare(kit: WorldKit, repo: WorldRepo, r: MatchedRequest): SimulatedResponse {
  const [baseRef = '', headRef = ''] = (r.params.basehead ?? '').split('...');
  const base = resolveCommit(kit, repo, baseRef.replace(/^[^:]+:/, ''));
  const head = resolveCommit(kit, repo, headRef.replace(/^[^:]+:/, ''));
  if (!base || !head) return notFound;
  const fromBase = ancestry(repo, base);
  const fromHead = ancestry(repo, head);
  // Oldest first, as the code host lists them.
  const ahead = repo.commits.filter((c) => fromHead.has(c.sha) && !fromBase.has(c.sha)).reverse();
  const behind = repo.commits.filter((c) => fromBase.has(c.sha) && !fromHead.has(c.sha));
  const mergeBase = repo.commits.find((c) => fromBase.has(c.sha) && fromHead.has(c.sha));
  const git = gitOf(repo);
  const before = mergeBase ? (filesOf(kit, repo, mergeBase.sha)?.files ?? {}) : {};
  const after = filesOf(kit, repo, head)?.files ?? {};
  const files = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .sort()
    .filter((path) => before[path] !== after[path])
    .map((filename) => {
      const [was, is] = [before[filename], after[filename]];
      const patch = patchOf(was === undefined ? undefined : git.blobs[was], is === undefined ? undefined : git.blobs[is]);
      const additions = patch.split('\n').filter((l) => l.startsWith('+')).length;
      const deletions = patch.split('\n').filter((l) => l.startsWith('-')).length;
      const status = was === undefined ? 'added' : is === undefined ? 'removed' : 'modified';
      return { sha: is ?? null, filename, status, additions, deletions, changes: additions + deletions, patch };
    });
  const perPage = Math.min(100, Math.max(1, Number(r.query.get('per_page') ?? 250) || 250));
  const page = Math.max(1, Number(r.query.get('page') ?? 1) || 1);
  const full = fullName(repo);
  const render = (sha: string) => {
    const c = repo.commits.find((x) => x.sha === sha);
    return c ? kit.renderCommit(repo, c) : undefined;
  };
  const status = ahead.length && behind.length ? 'diverged' : ahead.length ? 'ahead' : behind.length ? 'behind' : 'identical';
  return {
    body: {
      ...kit.shape('repos/compare-commits-with-basehead', full),
      url: `${kit.base()}/repos/${full}/compare/${baseRef}...${headRef}`,
      html_url: `https://github.com/${full}/compare/${baseRef}...${headRef}`,
      permalink_url: `https://github.com/${full}/compare/${base}...${head}`,
      diff_url: `https://github.com/${full}/compare/${baseRef}...${headRef}.diff`,
      patch_url: `https://github.com/${full}/compare/${baseRef}...${headRef}.patch`,
      base_commit: render(base),
      merge_base_commit: mergeBase ? render(mergeBase.sha) : render(base),
      status,
      ahead_by: ahead.length,
      behind_by: behind.length,
      total_commits: ahead.length,
      commits: ahead.slice((page - 1) * perPage, page * perPage).map((c) => kit.renderCommit(repo, c)),
      // As the code host: the files come with the first page only.
      files: page === 1 ? files.slice(0, 300) : [],
    },
  };
}

const fullName = (repo: WorldRepo) => `${repo.owner}/${repo.name}`;

/** The fork gets the source's files, commits, branches (or its default branch only) and Git database. */
function copyInto(source: WorldRepo, fork: WorldRepo, defaultBranchOnly: boolean): void {
  fork.files = structuredClone(source.files);
  fork.commits = structuredClone(source.commits);
  fork.git = structuredClone(gitOf(source));
  fork.default_branch = source.default_branch;
  fork.refs = Object.fromEntries(
    Object.entries(source.refs).filter(([ref]) => !defaultBranchOnly || ref === `heads/${source.default_branch}`),
  );
  fork.releases = [];
  for (const c of fork.commits) treeOfCommit(fork, c.sha);
}

/** `repo:`, `user:` and `org:` qualifiers narrow a search; the other words must all be found. */
function parseQuery(q: string): { inRepo: (r: WorldRepo) => boolean; words: string[] } {
  const quals = [...q.matchAll(/\b(repo|user|org):(\S+)/g)].map((m) => [m[1], (m[2] ?? '').toLowerCase()] as const);
  const words = q
    .replace(/\b\w+:\S+/g, '')
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean);
  const inRepo = (r: WorldRepo) =>
    quals.every(([kind, value]) => (kind === 'repo' ? fullName(r).toLowerCase() === value : r.owner.toLowerCase() === value));
  return { inRepo, words };
}

function searchAnswers(kit: WorldKit): Record<string, OperationResponder> {
  const found = (r: MatchedRequest, items: Json[]) => paged(kit, items, r);
  const wrap = (res: SimulatedResponse, total: number): SimulatedResponse => ({
    ...res,
    body: { total_count: total, incomplete_results: false, items: res.body },
  });
  const hitRepo = (repo: WorldRepo) => kit.renderRepo(repo);
  return {
    'search/code': (r) => {
      const { inRepo, words } = parseQuery(r.query.get('q') ?? '');
      const items = kit
        .repos()
        .filter(inRepo)
        .flatMap((repo) =>
          Object.entries(repo.files)
            .filter(([path, f]) =>
              words.every((w) => `${path}\n${Buffer.from(f.content, 'base64').toString('utf8')}`.toLowerCase().includes(w)),
            )
            .map(([path, f]) => ({
              name: path.split('/').pop() ?? path,
              path,
              sha: f.sha,
              url: `${kit.base()}/repos/${fullName(repo)}/contents/${path}`,
              git_url: `${kit.base()}/repos/${fullName(repo)}/git/blobs/${f.sha}`,
              html_url: `https://github.com/${fullName(repo)}/blob/${repo.default_branch}/${path}`,
              repository: hitRepo(repo),
              score: 1,
            })),
        );
      return wrap(found(r, items), items.length);
    },
    'search/commits': (r) => {
      const { inRepo, words } = parseQuery(r.query.get('q') ?? '');
      const items = kit
        .repos()
        .filter(inRepo)
        .flatMap((repo) => {
          const onDefault = ancestry(repo, kit.headOf(repo, repo.default_branch) ?? '');
          return repo.commits
            .filter((c) => onDefault.has(c.sha) && words.every((w) => c.message.toLowerCase().includes(w)))
            .map((c) => {
              const { stats: _s, files: _f, ...commit } = kit.renderCommit(repo, c);
              return { ...commit, repository: hitRepo(repo), score: 1 };
            });
        });
      return wrap(found(r, items), items.length);
    },
    'search/repos': (r) => {
      const { inRepo, words } = parseQuery(r.query.get('q') ?? '');
      const items = kit
        .repos()
        .filter((repo) => inRepo(repo) && words.every((w) => `${repo.name} ${repo.description ?? ''}`.toLowerCase().includes(w)))
        .map((repo) => ({ ...kit.renderRepo(repo), score: 1 }));
      return wrap(found(r, items), items.length);
    },
  };
}
