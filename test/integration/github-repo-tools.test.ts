import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Connection } from '../../shared/domain/model';
import { githubTools } from '../../shared/providers/github/tools';
import { catalog } from '../../shared/tools/catalog';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { b64, defaultAnswers, sha } from '../helpers/github-step-samples';
import { startOpenApiFakeGitHub, type OpenApiFakeGitHub } from '../helpers/openapi-check';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The tools of the repos, git and search toolsets against a code host that holds every
 * request to its OpenAPI description: what they send, how they bound large answers, how a
 * commit of several files fails when the branch moved, and how hits outside a connection's
 * repositories are left out.
 */

const { operations } = JSON.parse(readFileSync(new URL('../fixtures/github-openapi-examples.json', import.meta.url), 'utf8')) as {
  operations: Record<string, { properties: string[]; [key: `${string}Properties`]: string[]; examples: Record<string, unknown> }>;
};

/** Every optional input a step passes on, so unknown or mistyped fields show. */
const fullInputs: Record<string, Record<string, unknown>> = {
  'github.list_branches': { owner: 'octo', repo: 'allowed', protected: true, per_page: 10, max_items: 10 },
  'github.list_tags': { owner: 'octo', repo: 'allowed', per_page: 5, max_items: 5 },
  'github.compare_commits': {
    owner: 'octo',
    repo: 'allowed',
    base: 'v1.0.0',
    head: 'octocat:feature/x',
    page: 2,
    per_page: 100,
    max_files: 300,
    max_patch_chars: 0,
  },
  'github.get_tree': {
    owner: 'octo',
    repo: 'allowed',
    tree_sha: sha('7'),
    recursive: true,
    path_prefix: 'src/',
    offset: 0,
    max_entries: 5,
  },
  'github.commit_files': {
    owner: 'octo',
    repo: 'allowed',
    branch: 'feature/y',
    base_branch: 'dev',
    message: 'm',
    files: [
      { path: 'a.md', content: 'A', encoding: 'utf-8' },
      { path: 'bin/run', content: '#!/bin/sh\n', executable: true },
      { path: 'logo.png', content: b64('png'), encoding: 'base64' },
      { path: 'old.md', delete: true },
    ],
    expected_head_sha: sha('a'),
    author: { name: 'A', email: 'a@example.com' },
    committer: { name: 'Bot', email: 'bot@example.com' },
  },
  'github.delete_file': {
    owner: 'octo',
    repo: 'allowed',
    path: 'docs/a.md',
    message: 'm',
    branch: 'dev',
    sha: sha('b'),
    committer: { name: 'Bot', email: 'bot@example.com' },
    author: { name: 'A', email: 'a@example.com' },
  },
  'github.create_fork': { owner: 'octo', repo: 'allowed', organization: 'octo-org', name: 'allowed-fork', default_branch_only: true },
  'github.search_code': { q: 'addClass repo:octo/allowed', sort: 'indexed', order: 'asc', per_page: 10, max_items: 10 },
  'github.search_commits': { q: 'fix repo:octo/allowed', sort: 'committer-date', order: 'desc', per_page: 10, max_items: 10 },
  'github.search_repositories': { q: 'tetris', sort: 'stars', order: 'desc', per_page: 10, max_items: 10 },
};

describe('the repos, git and search tools against the OpenAPI description', () => {
  let gh: OpenApiFakeGitHub;
  let t: ToolTestContext;
  const call = async (toolId: string, input: Record<string, unknown>, connection?: Connection): Promise<ToolResult> => {
    const c = connection ?? (await t.connect());
    return invokeTool(t.ctx, { toolId, connectionId: c.id, input }, [githubTools]);
  };
  const ok = (r: ToolResult) => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    return r.data as Record<string, any>;
  };

  beforeAll(async () => {
    gh = await startOpenApiFakeGitHub(defaultAnswers(() => gh.url));
    t = await toolTestContext({ GITHUB_API_URL: gh.url });
  });
  afterAll(() => gh.close());
  beforeEach(() => gh.reset());

  it.each(Object.keys(fullInputs))('%s with every optional input sends only documented fields', async (id) => {
    // commit_files with base_branch makes the branch only when it does not exist yet.
    if (id === 'github.commit_files')
      gh.on('git/get-ref', (r) =>
        r.params.ref === 'heads/feature/y'
          ? { status: 404, body: {} }
          : { body: { ref: `refs/${r.params.ref}`, object: { sha: sha('a'), type: 'commit' } } },
      );
    ok(await call(id, fullInputs[id] ?? {}));
    expect(gh.calls.length).toBeGreaterThan(0);
    expect(gh.problems).toEqual([]);
  });

  it('puts every new tool in its toolset', () => {
    const toolsets = Object.fromEntries(githubTools.steps.filter((s) => s.toolset).map((s) => [s.id, s.toolset]));
    expect(toolsets).toMatchObject({
      'github.list_branches': 'repos',
      'github.list_tags': 'repos',
      'github.get_release_by_tag': 'repos',
      'github.get_latest_release': 'repos',
      'github.compare_commits': 'repos',
      'github.delete_file': 'repos',
      'github.create_fork': 'repos',
      'github.get_tree': 'git',
      'github.commit_files': 'git',
      'github.search_code': 'search',
      'github.search_commits': 'search',
      'github.search_repositories': 'search',
    });
  });

  it('compare_commits asks for one page of commits and says how to read the next', async () => {
    const commits = Array.from({ length: 10 }, (_, i) => ({ sha: sha(String(i)) }));
    gh.on('repos/compare-commits-with-basehead', () => ({
      body: { status: 'ahead', ahead_by: 250, behind_by: 0, total_commits: 250, commits, files: [] },
    }));
    const data = ok(
      await call('github.compare_commits', { owner: 'octo', repo: 'allowed', base: 'main', head: 'feature/x', per_page: 10 }),
    );
    const [asked] = gh.callsOf('repos/compare-commits-with-basehead');
    expect(asked?.params.basehead).toBe('main...feature/x');
    expect(Object.fromEntries(asked?.query ?? [])).toEqual({ page: '1', per_page: '10' });
    expect(data).toMatchObject({ total_commits: 250, next_page: 2, files_left_out: 0 });
    expect(data.commits).toHaveLength(10);
    expect(data.read_on).toMatch(/page 2/);

    gh.reset();
    gh.on('repos/compare-commits-with-basehead', () => ({
      body: { status: 'ahead', ahead_by: 250, behind_by: 0, total_commits: 250, commits, files: [] },
    }));
    const last = ok(
      await call('github.compare_commits', { owner: 'octo', repo: 'allowed', base: 'main', head: 'x', page: 25, per_page: 10 }),
    );
    expect(last).toMatchObject({ next_page: null, read_on: null });
  });

  it('compare_commits windows the files and cuts each patch, saying what was left out', async () => {
    const files = Array.from({ length: 5 }, (_, i) => ({
      filename: `f${i}.ts`,
      status: 'modified',
      changes: 3,
      patch: `@@ -1 +1 @@\n${'+x'.repeat(1000)}`,
    }));
    files.push({ filename: 'huge.bin', status: 'modified', changes: 90000 } as (typeof files)[number]);
    gh.on('repos/compare-commits-with-basehead', () => ({
      body: { status: 'diverged', ahead_by: 1, behind_by: 2, total_commits: 1, commits: [{ sha: sha('c') }], files },
    }));
    const data = ok(
      await call('github.compare_commits', { owner: 'octo', repo: 'allowed', base: 'a', head: 'b', max_files: 3, max_patch_chars: 100 }),
    );
    expect(data.files).toHaveLength(3);
    expect(data.files_left_out).toBe(3);
    expect(data.files[0]).toMatchObject({ filename: 'f0.ts', patch_truncated: true });
    expect(data.files[0].patch).toHaveLength(100);
    expect(data.read_on).toMatch(/3 more changed files.*3 patches cut/);
    const all = ok(await call('github.compare_commits', { owner: 'octo', repo: 'allowed', base: 'a', head: 'b', max_patch_chars: 0 }));
    expect(all.files).toHaveLength(6);
    expect(all.files.every((f: Record<string, unknown>) => !('patch' in f) && !('patch_truncated' in f))).toBe(true);
    const whole = ok(
      await call('github.compare_commits', { owner: 'octo', repo: 'allowed', base: 'a', head: 'b', max_patch_chars: 100_000 }),
    );
    // The code host gives no patch for a file whose diff is too large: said, not hidden.
    expect(whole.files.at(-1)).toMatchObject({ filename: 'huge.bin', patch_truncated: true });
    expect(whole.files[0].patch_truncated).toBeUndefined();
  });

  it('compare_commits declares only fields the code host documents for its commits and files', () => {
    const step = githubTools.steps.find((s) => s.id === 'github.compare_commits')!;
    const shape = (step.output as any).shape;
    const op = operations['repos/compare-commits-with-basehead']!;
    const own = ['files_left_out', 'next_page', 'read_on'];
    expect(Object.keys(shape).filter((f) => !own.includes(f) && !op.properties.includes(f))).toEqual([]);
    expect(Object.keys(shape.commits.element.shape).filter((f) => !op.commitsProperties?.includes(f))).toEqual([]);
    expect(Object.keys(shape.files.element.shape).filter((f) => !op.filesProperties?.includes(f))).toEqual(['patch_truncated']);
  });

  it('get_tree sends recursive only when asked (the code host reads any value as yes) and windows the entries', async () => {
    const tree = Array.from({ length: 25 }, (_, i) => ({
      path: i < 5 ? `docs/${i}.md` : `src/${i}.ts`,
      mode: '100644',
      type: 'blob',
      sha: sha('b'),
    }));
    gh.on('git/get-tree', () => ({ body: { sha: sha('7'), truncated: true, tree } }));
    ok(await call('github.get_tree', { owner: 'octo', repo: 'allowed', tree_sha: 'main' }));
    expect(gh.callsOf('git/get-tree')[0]?.query.has('recursive')).toBe(false);
    const first = ok(await call('github.get_tree', { owner: 'octo', repo: 'allowed', tree_sha: 'main', recursive: true, max_entries: 8 }));
    expect(gh.callsOf('git/get-tree')[1]?.query.get('recursive')).toBe('1');
    expect(first).toMatchObject({ truncated: true, count: 8, total: 25, next_offset: 8 });
    const src = ok(
      await call('github.get_tree', { owner: 'octo', repo: 'allowed', tree_sha: 'main', recursive: true, path_prefix: 'src', offset: 15 }),
    );
    expect(src).toMatchObject({ count: 5, total: 20, next_offset: null });
    expect(src.entries.map((e: { path: string }) => e.path)).toEqual(['src/20.ts', 'src/21.ts', 'src/22.ts', 'src/23.ts', 'src/24.ts']);
  });

  it('commit_files writes one tree on the head, one commit on it, and moves the branch without force', async () => {
    const data = ok(
      await call('github.commit_files', {
        owner: 'octo',
        repo: 'allowed',
        message: 'Two files and a deletion',
        files: [
          { path: 'a.md', content: 'A' },
          { path: 'logo.png', content: b64('png'), encoding: 'base64' },
          { path: 'old.md', delete: true },
        ],
      }),
    );
    expect(gh.callsOf('git/get-ref')[0]?.params.ref).toBe('heads/trunk');
    expect(gh.callsOf('git/get-commit')[0]?.params.commit_sha).toBe(sha('a'));
    expect(gh.callsOf('git/create-blob')[0]?.json).toEqual({ content: b64('png'), encoding: 'base64' });
    expect(gh.callsOf('git/create-tree')[0]?.json).toEqual({
      base_tree: sha('7'),
      tree: [
        { path: 'a.md', mode: '100644', type: 'blob', content: 'A' },
        { path: 'logo.png', mode: '100644', type: 'blob', sha: sha('6') },
        { path: 'old.md', mode: '100644', type: 'blob', sha: null },
      ],
    });
    expect(gh.callsOf('git/create-commit')[0]?.json).toEqual({ message: 'Two files and a deletion', tree: sha('8'), parents: [sha('a')] });
    const [move] = gh.callsOf('git/update-ref');
    expect(move?.params.ref).toBe('heads/trunk');
    expect(move?.json).toEqual({ sha: sha('9'), force: false });
    expect(data).toMatchObject({ branch: 'trunk', created_branch: false, parent: sha('a'), commit: { sha: sha('9') } });
    expect(data.files).toEqual([
      { path: 'a.md', action: 'written' },
      { path: 'logo.png', action: 'written' },
      { path: 'old.md', action: 'deleted' },
    ]);
    expect(gh.problems).toEqual([]);
  });

  it('commit_files answers conflict when the branch moved meanwhile, and changes nothing', async () => {
    gh.on('git/update-ref', () => ({
      status: 422,
      body: { message: 'Update is not a fast forward', documentation_url: 'https://docs.github.com/rest/git/refs#update-a-reference' },
    }));
    const r = await call('github.commit_files', {
      owner: 'octo',
      repo: 'allowed',
      branch: 'main',
      message: 'm',
      files: [{ path: 'a', content: 'x' }],
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'conflict', details: { branch: 'main', head: sha('a') } } });
    expect(!r.ok && r.error.message).toMatch(/moved.*retry/);
    expect(gh.callsOf('git/update-ref')).toHaveLength(1);
  });

  it('commit_files refuses before writing when the branch is not at expected_head_sha', async () => {
    const r = await call('github.commit_files', {
      owner: 'octo',
      repo: 'allowed',
      branch: 'main',
      message: 'm',
      files: [{ path: 'a', content: 'x' }],
      expected_head_sha: sha('f'),
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(gh.calls.filter((c) => c.method !== 'GET')).toHaveLength(0);
  });

  it('commit_files makes a missing branch from base_branch, and only when asked', async () => {
    gh.on('git/get-ref', (r) =>
      r.params.ref === 'heads/dev'
        ? { body: { ref: 'refs/heads/dev', object: { sha: sha('d'), type: 'commit' } } }
        : { status: 404, body: {} },
    );
    const missing = await call('github.commit_files', {
      owner: 'octo',
      repo: 'allowed',
      branch: 'topic',
      message: 'm',
      files: [{ path: 'a', content: 'x' }],
    });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(!missing.ok && missing.error.message).toMatch(/base_branch/);
    expect(gh.calls.filter((c) => c.method !== 'GET')).toHaveLength(0);

    const made = ok(
      await call('github.commit_files', {
        owner: 'octo',
        repo: 'allowed',
        branch: 'topic',
        base_branch: 'dev',
        message: 'm',
        files: [{ path: 'a', content: 'x' }],
      }),
    );
    expect(gh.callsOf('git/create-ref')[0]?.json).toEqual({ ref: 'refs/heads/topic', sha: sha('9') });
    expect(gh.callsOf('git/update-ref')).toHaveLength(0);
    expect(made).toMatchObject({ branch: 'topic', created_branch: true, parent: sha('d') });
  });

  it('commit_files names a path given twice and sends nothing', async () => {
    const r = await call('github.commit_files', {
      owner: 'octo',
      repo: 'allowed',
      message: 'm',
      files: [
        { path: 'a.md', content: 'x' },
        { path: 'a.md', delete: true },
      ],
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'input.files' }] } } });
    expect(gh.server.requests).toHaveLength(0);
  });

  it.each([
    [
      'github.commit_files',
      { owner: 'octo', repo: 'allowed', message: 'm', files: [{ path: 'a', delete: true }] },
      ['git/create-tree', 'git/create-commit', 'git/update-ref'],
    ],
    ['github.delete_file', { owner: 'octo', repo: 'allowed', path: 'README.md', message: 'm' }, ['repos/delete-file']],
  ])('%s with dryRun describes the request and writes nothing', async (id, input, writes) => {
    const data = ok(await call(id, { ...input, dryRun: true }));
    expect(data).toMatchObject({ dryRun: true, request: { method: expect.any(String), url: expect.any(String) } });
    for (const w of writes) expect(gh.callsOf(w)).toHaveLength(0);
    expect(catalog([githubTools]).find((e) => e.id === id)?.destructive).toBe(true);
  });

  it('delete_file deletes with the SHA of the file on the branch it deletes on', async () => {
    const data = ok(await call('github.delete_file', { owner: 'octo', repo: 'allowed', path: 'docs/a.md', message: 'm', branch: 'dev' }));
    expect(gh.callsOf('repos/get-content')[0]?.query.get('ref')).toBe('dev');
    expect(gh.callsOf('repos/delete-file')[0]?.json).toEqual({ message: 'm', sha: sha('b'), branch: 'dev' });
    expect(data).toMatchObject({ deleted: true, path: 'docs/a.md', commit: { sha: sha('9') } });
  });

  it('delete_file answers not_found for no file and invalid_input for a folder, deleting nothing', async () => {
    gh.on('repos/get-content', () => ({ status: 404, body: { message: 'Not Found' } }));
    expect(await call('github.delete_file', { owner: 'octo', repo: 'allowed', path: 'gone.md', message: 'm' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    gh.on('repos/get-content', () => ({ body: [{ type: 'file', name: 'x', path: 'src/x' }] }));
    expect(await call('github.delete_file', { owner: 'octo', repo: 'allowed', path: 'src', message: 'm' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', details: { fields: [{ field: 'input.path' }] } },
    });
    expect(gh.callsOf('repos/delete-file')).toHaveLength(0);
  });

  it('create_fork is refused before anything is sent when the fork would be outside the allow-list', async () => {
    const c = await t.connect({ repositories: ['octo/allowed'], accountLogin: 'octocat' });
    expect(await call('github.create_fork', { owner: 'octo', repo: 'allowed' }, c)).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(await call('github.create_fork', { owner: 'octo', repo: 'secret', organization: 'octo', name: 'allowed' }, c)).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(gh.server.requests).toHaveLength(0);
    const both = await t.connect({ repositories: ['octo/allowed', 'octocat/allowed'], accountLogin: 'octocat' });
    expect(ok(await call('github.create_fork', { owner: 'octo', repo: 'allowed' }, both))).toMatchObject({ full_name: 'octocat/allowed' });
  });

  it.each([
    ['github.search_code', { q: 'x org:octo' }],
    ['github.search_commits', { q: 'x org:octo' }],
    ['github.search_repositories', { q: 'x org:octo' }],
  ])('%s leaves hits in other repositories out when the connection is limited', async (id, input) => {
    const limited = await t.connect({ repositories: ['octo/allowed'] });
    expect(ok(await call(id, input, limited))).toMatchObject({ count: 1, left_out: 1, total_count: 2 });
    expect(ok(await call(id, input))).toMatchObject({ count: 2, left_out: 0 });
  });

  it('refuses a repository outside the allow-list for every repository tool, before anything is sent', async () => {
    const c = await t.connect({ repositories: ['octo/allowed'] });
    for (const id of Object.keys(fullInputs).filter((i) => !i.startsWith('github.search_'))) {
      const input = { ...fullInputs[id], repo: 'secret' };
      expect(await call(id, input, c), id).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect(gh.server.requests).toHaveLength(0);
  });
});
