import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTriggerCommand } from '../../local/cli/trigger';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';
import { until } from '../helpers/runtime-support';

/**
 * From a trigger's example event to the agent's answer made with typed tools only, in the
 * sandbox (`npm run dev`): one flow per kind of occurrence the repos, git and search tools
 * answer (a release, a push, anything that calls for a search). The simulated code host keeps
 * what the tools change, so each step reads what the one before it made.
 */

const key = 'sandbox-repo-tools-key-0123456789abcdef';
const [owner, repo] = demo.repository.split('/') as [string, string];
let rt: LocalRuntime;
let dir: string;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A typed tool on the demo connection; its data, or the failure when `failing`. */
async function tool(id: string, input: Record<string, unknown>, failing = false): Promise<any> {
  const r = await call('POST', `/tools/${id}/invoke`, { connectionId: rt.sandbox!.demo.github.id, input });
  if (failing) {
    expect(r.body.ok, `${id} was expected to fail`).toBe(false);
    return r.body.error;
  }
  expect(r.body, id).toMatchObject({ ok: true });
  return r.body.data;
}

/** Subscribes the agent to `trigger`, fires its example with `overrides`, and answers the event the agent runtime got. */
async function woken(trigger: string, ...overrides: string[]): Promise<any> {
  const sub = await call('POST', '/subscriptions', {
    connectionId: rt.sandbox!.demo.github.id,
    trigger,
    agentId: 'repo-agent',
    repository: demo.repository,
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  const lines: string[] = [];
  const set = overrides.flatMap((o) => ['--set', o]);
  expect(
    await runTriggerCommand([trigger, ...set, '--url', rt.url], { env: { PLATFORM_API_KEY: key }, out: (l) => lines.push(l) }),
    lines.join('\n'),
  ).toBe(0);
  let event: any;
  await until(`the ${trigger} event in the inbox`, async () => {
    const inbox = await call('GET', '/sandbox/inbox');
    event = inbox.body.events.find((e: any) => e.body.trigger === trigger);
    return event !== undefined;
  });
  expect(event.signatureValid).toBe(true);
  return event.body.event;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-repo-tools-'));
  rt = await startLocalRuntime({
    env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
    write: () => {},
    sandbox: true,
  });
});

afterAll(async () => {
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the repos, git and search tools answer what woke the agent, in the sandbox', () => {
  it('new release: the agent reads the release and the tags, compares the tag with the default branch, and commits a changelog', async () => {
    const event = await woken('github.new_release', 'release.tag_name="v1.0.0"');
    const { tag_name: tag } = event.release;
    const release = await tool('github.get_release_by_tag', { owner, repo, tag });
    expect(release).toMatchObject({ tag_name: 'v1.0.0' });
    expect(await tool('github.get_latest_release', { owner, repo })).toMatchObject({ id: release.id, tag_name: tag });
    expect(await tool('github.get_release_by_tag', { owner, repo, tag: 'v9.9.9' }, true)).toMatchObject({ code: 'not_found' });

    const tags = await tool('github.list_tags', { owner, repo });
    const tagged = tags.items.find((t: any) => t.name === tag);
    const branches = await tool('github.list_branches', { owner, repo });
    const main = branches.items.find((b: any) => b.name === 'main');
    expect(tagged.commit.sha).toBe(main.commit.sha);

    // Work lands on main after the release: the comparison shows it, file by file.
    const landed = await tool('github.commit_files', {
      owner,
      repo,
      message: 'Add the greeting',
      files: [{ path: 'src/greet.ts', content: 'export const greet = () => "hi";\n' }],
    });
    const since = await tool('github.compare_commits', { owner, repo, base: tag, head: 'main' });
    expect(since).toMatchObject({ status: 'ahead', ahead_by: 1, total_commits: 1, next_page: null, read_on: null });
    expect(since.commits.map((c: any) => c.sha)).toEqual([landed.commit.sha]);
    expect(since.files).toEqual([
      expect.objectContaining({ filename: 'src/greet.ts', status: 'added', patch: expect.stringContaining('+export const greet') }),
    ]);

    // The agent's answer: the changelog, committed on top of what it compared.
    const changelog = `## Since ${tag}\n\n${since.commits.map((c: any) => `- ${c.commit.message}`).join('\n')}\n`;
    const written = await tool('github.commit_files', {
      owner,
      repo,
      message: `Changelog since ${tag}`,
      files: [{ path: 'CHANGELOG.md', content: changelog }],
      expected_head_sha: landed.commit.sha,
    });
    expect(written).toMatchObject({ branch: 'main', parent: landed.commit.sha });
    const file = await tool('github.get_repository_content', { owner, repo, path: 'CHANGELOG.md' });
    expect(file.text).toBe(changelog);
  });

  it('new push: the agent reads the tree, commits several files on a branch of its own, deletes one, and forks; a stale head is a conflict', async () => {
    const event = await woken('github.new_push', 'ref="refs/heads/main"');
    const branch = String(event.ref ?? 'refs/heads/main').replace('refs/heads/', '');
    const before = await tool('github.get_tree', { owner, repo, tree_sha: branch, recursive: true });
    expect(before.entries.map((e: any) => e.path)).toContain('README.md');
    const head = (await tool('github.list_branches', { owner, repo })).items.find((b: any) => b.name === branch).commit.sha;

    const made = await tool('github.commit_files', {
      owner,
      repo,
      branch: 'agent/tidy',
      base_branch: branch,
      message: 'Tidy: docs in docs/, a script, no readme',
      files: [
        { path: 'docs/intro.md', content: '# Intro\n' },
        { path: 'bin/check', content: '#!/bin/sh\nexit 0\n', executable: true },
        { path: 'README.md', delete: true },
      ],
    });
    expect(made).toMatchObject({ branch: 'agent/tidy', created_branch: true, parent: head });
    const tree = await tool('github.get_tree', { owner, repo, tree_sha: 'agent/tidy', recursive: true });
    const paths = tree.entries.map((e: any) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['bin', 'bin/check', 'docs', 'docs/intro.md']));
    expect(paths).not.toContain('README.md');
    const docs = tree.entries.find((e: any) => e.path === 'docs');
    expect((await tool('github.get_tree', { owner, repo, tree_sha: docs.sha })).entries.map((e: any) => e.path)).toEqual(['intro.md']);
    // The default branch is as it was.
    expect((await tool('github.get_tree', { owner, repo, tree_sha: branch })).entries.map((e: any) => e.path)).toContain('README.md');
    const diff = await tool('github.compare_commits', { owner, repo, base: branch, head: 'agent/tidy' });
    expect(Object.fromEntries(diff.files.map((f: any) => [f.filename, f.status]))).toMatchObject({
      'README.md': 'removed',
      'docs/intro.md': 'added',
      'bin/check': 'added',
    });

    // Someone else pushes to the branch: the agent's commit on the old head is refused, nothing changes.
    const theirs = await tool('github.commit_files', {
      owner,
      repo,
      branch: 'agent/tidy',
      message: 'Theirs',
      files: [{ path: 'x.md', content: 'x' }],
    });
    const stale = await tool(
      'github.commit_files',
      { owner, repo, branch: 'agent/tidy', message: 'Mine', files: [{ path: 'y.md', content: 'y' }], expected_head_sha: made.commit.sha },
      true,
    );
    expect(stale).toMatchObject({ code: 'conflict', details: { head: theirs.commit.sha } });

    // The simulated code host refuses to move a branch backwards without force, as the code host does.
    const backwards = await call('POST', '/tools/github.api_call/invoke', {
      connectionId: rt.sandbox!.demo.github.id,
      input: {
        method: 'PATCH',
        endpoint: `/repos/${owner}/${repo}/git/refs/${encodeURIComponent('heads/agent/tidy')}`,
        body: { sha: head, force: false },
      },
    });
    expect(JSON.stringify(backwards.body)).toMatch(/not a fast forward/);

    expect(await tool('github.get_repository_content', { owner, repo, path: 'x.md', ref: 'agent/tidy' })).toMatchObject({ text: 'x' });
    const gone = await tool('github.delete_file', { owner, repo, branch: 'agent/tidy', path: 'x.md', message: 'No x' });
    expect(gone).toMatchObject({ deleted: true, path: 'x.md', commit: { parents: [{ sha: theirs.commit.sha }] } });
    expect(await tool('github.get_repository_content', { owner, repo, path: 'x.md', ref: 'agent/tidy' }, true)).toMatchObject({
      code: 'not_found',
    });
    expect(await tool('github.delete_file', { owner, repo, branch: 'agent/tidy', path: 'x.md', message: 'Again' }, true)).toMatchObject({
      code: 'not_found',
    });
    expect(
      (await tool('github.get_tree', { owner, repo, tree_sha: 'agent/tidy', recursive: true })).entries.map((e: any) => e.path),
    ).toContain('docs/intro.md');

    const fork = await tool('github.create_fork', { owner, repo, organization: 'octo-org', name: 'hello-fork' });
    expect(fork).toMatchObject({ full_name: 'octo-org/hello-fork' });
    const forked = await tool('github.get_tree', { owner: 'octo-org', repo: 'hello-fork', tree_sha: 'agent/tidy', recursive: true });
    expect(forked.entries.map((e: any) => e.path)).toContain('docs/intro.md');
    expect(await tool('github.create_fork', { owner, repo, organization: 'octo-org', name: 'hello-fork' })).toMatchObject({ id: fork.id });
  });

  it('anything: the agent searches code, commits and repositories, and answers on the issue with what it found', async () => {
    const event = await woken('github.new_issue', 'issue.title="Where is the greeting?"', 'issue.number=1');
    await tool('github.commit_files', {
      owner,
      repo,
      message: 'Say hello in the greeting',
      files: [{ path: 'lib/hello.rb', content: 'puts "greeting"\n' }],
    });

    const code = await tool('github.search_code', { q: `greeting repo:${demo.repository}` });
    expect(code.items.map((h: any) => h.path)).toContain('lib/hello.rb');
    expect(code.items[0].repository.full_name).toBe(demo.repository);
    const commits = await tool('github.search_commits', { q: `greeting repo:${demo.repository}` });
    expect(commits.items.map((c: any) => c.commit.message)).toContain('Say hello in the greeting');
    const repos = await tool('github.search_repositories', { q: 'first repository user:octocat' });
    expect(repos.items.map((r: any) => r.full_name)).toEqual([demo.repository]);
    expect(repos).toMatchObject({ total_count: 1, left_out: 0 });

    const reply = await tool('github.create_issue_comment', {
      owner,
      repo,
      issue_number: event.issue.number,
      body: `Found in ${code.items.map((h: any) => h.path).join(', ')} (commit ${commits.items[0].sha.slice(0, 7)}).`,
    });
    expect(reply.body).toMatch(/lib\/hello\.rb/);
  });
});
