import type { MatchedRequest, OperationResponder } from './openapi-check';

/**
 * Plausible answers of the code host for the operations of the repos, git and search tools
 * (branches, tags, releases, comparisons, trees, commits, file deletion, forks, search), in
 * the shapes of its REST description: part of `defaultAnswers` (github-answers.ts).
 */
export function repoToolAnswers(base: () => string): Record<string, OperationResponder> {
  const sha = (c: string) => c.repeat(40);
  const body = (r: MatchedRequest) => (r.json ?? {}) as Record<string, unknown>;
  const hitsIn = (make: (repository: string, i: number) => Record<string, unknown>) => () => ({
    body: { total_count: 2, incomplete_results: false, items: ['octo/allowed', 'octo/other'].map(make) },
  });
  const hitRepo = (full_name: string, i: number) => ({ id: i + 1, full_name, html_url: `https://github.com/${full_name}` });
  return {
    'repos/list-branches': () => ({ body: [{ name: 'trunk', commit: { sha: sha('a'), url: `${base()}/x` }, protected: false }] }),
    'repos/list-tags': () => ({ body: [{ name: 'v1.0.0', commit: { sha: sha('c'), url: `${base()}/x` } }] }),
    'repos/get-release-by-tag': (r) => ({ body: { id: 1, tag_name: r.params.tag } }),
    'repos/get-latest-release': () => ({ body: { id: 1, tag_name: 'v1.0.0' } }),
    'repos/compare-commits-with-basehead': () => ({
      body: {
        status: 'ahead',
        ahead_by: 1,
        behind_by: 0,
        total_commits: 1,
        commits: [{ sha: sha('c') }],
        files: [{ filename: 'a.md', status: 'modified', additions: 1, deletions: 1, changes: 2, patch: '@@ -1 +1 @@\n-a\n+b' }],
      },
    }),
    'git/get-tree': (r) => ({
      body: {
        sha: /^[0-9a-f]{40}$/.test(r.params.tree_sha ?? '') ? r.params.tree_sha : sha('7'),
        truncated: false,
        tree: [
          { path: 'README.md', mode: '100644', type: 'blob', sha: sha('b'), size: 6 },
          { path: 'src', mode: '040000', type: 'tree', sha: sha('5') },
        ],
      },
    }),
    'git/get-commit': (r) => ({ body: { sha: r.params.commit_sha, tree: { sha: sha('7') }, parents: [] } }),
    'git/create-blob': () => ({ status: 201, body: { sha: sha('6'), url: `${base()}/x` } }),
    'git/create-tree': () => ({ status: 201, body: { sha: sha('8'), truncated: false, tree: [] } }),
    'git/create-commit': (r) => ({
      status: 201,
      body: {
        sha: sha('9'),
        message: body(r).message,
        tree: { sha: body(r).tree },
        parents: ((body(r).parents ?? []) as string[]).map((p) => ({ sha: p })),
      },
    }),
    'git/update-ref': (r) => ({ body: { ref: `refs/${r.params.ref}`, object: { sha: body(r).sha, type: 'commit' } } }),
    'repos/delete-file': (r) => ({ body: { content: null, commit: { sha: sha('9'), message: body(r).message } } }),
    'repos/create-fork': (r) => ({
      status: 202,
      body: { id: 4, full_name: `${String(body(r).organization ?? 'octocat')}/${String(body(r).name ?? r.params.repo)}`, fork: true },
    }),
    'search/code': hitsIn((full_name, i) => ({ name: 'a.ts', path: 'src/a.ts', sha: sha('b'), repository: hitRepo(full_name, i) })),
    'search/commits': hitsIn((full_name, i) => ({ sha: sha(String(i + 1)), repository: hitRepo(full_name, i) })),
    'search/repos': hitsIn((full_name, i) => hitRepo(full_name, i)),
  };
}
