import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo, sandboxStateFileName } from '../../local/sandbox/sandbox';
import { sandboxBanner } from '../../local/sandbox/banner';
import { SandboxStateFile } from '../../local/sandbox/state-file';

const key = 'sandbox-state-test-key-0123456789abcdef';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startDev(dataDir: string): Promise<LocalRuntime> {
  const rt = await startLocalRuntime({
    env: { DATA_DIR: dataDir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
    write: () => {},
    sandbox: true,
  });
  let closed = false;
  const close = rt.close.bind(rt);
  rt.close = async () => {
    if (closed) return;
    closed = true;
    await close();
  };
  cleanup.push(() => rt.close());
  return rt;
}

async function call(rt: LocalRuntime, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const step = (rt: LocalRuntime, id: string, input: unknown, provider: 'github' | 'contentsnare' = 'github') =>
  call(rt, 'POST', `/tools/${id}/invoke`, { connectionId: rt.sandbox!.demo[provider].id, input });

/** `api_call GET` against the simulated code host: the status and the data it answered. */
async function gh(rt: LocalRuntime, endpoint: string, query?: Record<string, string>): Promise<{ status: number; data: any }> {
  const r = await step(rt, 'github.api_call', { method: 'GET', endpoint, ...(query ? { query } : {}) });
  return r.body.ok ? r.body.data : { status: r.body.error.details?.status, data: r.body.error };
}

const snare = async (rt: LocalRuntime, endpoint: string) =>
  (await step(rt, 'contentsnare.api_call', { method: 'GET', endpoint }, 'contentsnare')).body.data as { status: number; data: any };

/** The simulated service's own list of webhooks: the product's hook is left out of what `api_call` lists (it is managed). */
const snareHooks = async (rt: LocalRuntime) =>
  (
    (await (
      await fetch(`${rt.sandbox!.contentsnareUrl}/partner_api/v1/webhooks`, {
        headers: { authorization: `Bearer ${demo.contentsnareToken}` },
      })
    ).json()) as { results: Array<{ id: string; subscriptions: string[] }> }
  ).results;

/** The published example of an operation, as extracted from the code host's REST description. */
const published = JSON.parse(readFileSync(new URL('../fixtures/github-openapi-examples.json', import.meta.url), 'utf8')) as {
  operations: Record<string, { examples: Record<string, unknown> }>;
};
const exampleKeys = (op: string): string[] => {
  const first = Object.values(published.operations[op]?.examples ?? {})[0];
  return Object.keys((Array.isArray(first) ? first[0] : first) as object);
};

describe('the sandbox keeps state like the services', () => {
  it('an issue a step creates is listed by GET /repos/{owner}/{repo}/issues and read back, and issue numbers advance', async () => {
    const rt = await startDev(tempDir());
    const first = await step(rt, 'github.create_issue', { owner: 'octocat', repo: 'hello-world', title: 'First from a step' });
    const second = await step(rt, 'github.create_issue', { owner: 'octocat', repo: 'hello-world', title: 'Second from a step' });
    expect(first.body.ok, JSON.stringify(first.body)).toBe(true);
    expect(second.body.data.number).toBe(first.body.data.number + 1);
    expect(first.body.data.id).not.toBe(second.body.data.id);
    // The example of docs/tool-steps.md.
    const listed = await gh(rt, `/repos/${demo.repository}/issues`, { state: 'open' });
    expect(listed.status).toBe(200);
    expect(listed.data.map((i: { title: string }) => i.title)).toEqual(['Second from a step', 'First from a step', 'Found a bug']);
    const one = await gh(rt, `/repos/${demo.repository}/issues/${String(second.body.data.number)}`);
    expect(one.data).toMatchObject({ title: 'Second from a step', state: 'open', user: { login: 'octocat' } });
    expect(one.data.html_url).toBe(`https://github.com/${demo.repository}/issues/${String(second.body.data.number)}`);
  });

  it('a comment and a pull request a step makes are listed and read back; pull requests share the issue numbers', async () => {
    const rt = await startDev(tempDir());
    const comment = await step(rt, 'github.create_issue_comment', { owner: 'octocat', repo: 'hello-world', issue_number: 1, body: 'Seen' });
    expect(comment.body.ok, JSON.stringify(comment.body)).toBe(true);
    expect((await gh(rt, `/repos/${demo.repository}/issues/1/comments`)).data.map((c: { body: string }) => c.body)).toEqual(['Seen']);
    expect((await gh(rt, `/repos/${demo.repository}/issues/1`)).data.comments).toBe(1);
    const branch = await step(rt, 'github.create_branch', { owner: 'octocat', repo: 'hello-world', ref: 'feature', from_branch: 'main' });
    expect(branch.body.ok, JSON.stringify(branch.body)).toBe(true);
    const pull = await step(rt, 'github.create_pull_request', {
      owner: 'octocat',
      repo: 'hello-world',
      title: 'A change',
      head: 'feature',
      base: 'main',
    });
    expect(pull.body.ok, JSON.stringify(pull.body)).toBe(true);
    expect(pull.body.data.number).toBe(2);
    expect((await gh(rt, `/repos/${demo.repository}/pulls/2`)).data).toMatchObject({
      title: 'A change',
      head: { ref: 'feature' },
      base: { ref: 'main' },
    });
    expect((await gh(rt, `/repos/${demo.repository}/pulls`)).data.map((p: { number: number }) => p.number)).toEqual([2]);
  });

  it('an unknown repository is 404, for a step, a read and a subscription, as the code host answers', async () => {
    const rt = await startDev(tempDir());
    const issue = await step(rt, 'github.create_issue', { owner: 'octocat', repo: 'no-such-repo', title: 'Lost' });
    expect(issue.body).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await gh(rt, '/repos/someone/else/issues')).status).toBe(404);
    const sub = await call(rt, 'POST', '/subscriptions', {
      connectionId: rt.sandbox!.demo.github.id,
      trigger: 'github.new_issue',
      agentId: 'my-agent',
      repository: 'octocat/no-such-repo',
    });
    expect(sub.status).toBe(404);
  });

  it('answers with the published shapes: every field of the REST description example for a repository, an issue and the user', async () => {
    const rt = await startDev(tempDir());
    const repo = (await gh(rt, `/repos/${demo.repository}`)).data;
    const left = ['template_repository', 'parent', 'source', 'organization', 'mirror_url', 'temp_clone_token'];
    for (const field of exampleKeys('repos/get').filter((k) => !left.includes(k)))
      expect(repo, `repository ${field}`).toHaveProperty(field);
    expect(repo).toMatchObject({ full_name: demo.repository, owner: { login: 'octocat' }, license: null });
    expect(repo.issues_url).toBe(`${rt.sandbox!.githubUrl}/repos/${demo.repository}/issues{/number}`);
    const issue = (await gh(rt, `/repos/${demo.repository}/issues/1`)).data;
    for (const field of exampleKeys('issues/get').filter((k) => !['pull_request', 'closed_by', 'pinned_comment'].includes(k)))
      expect(issue, `issue ${field}`).toHaveProperty(field);
    const me = (await gh(rt, '/user')).data;
    for (const field of exampleKeys('users/get-authenticated')) expect(me, `user ${field}`).toHaveProperty(field);
    const repos = (await gh(rt, '/user/repos')).data;
    expect(repos.map((r: { full_name: string }) => r.full_name)).toEqual([demo.repository]);
  });

  it('keeps what was made across a restart: issues, gists, repositories, hooks, clients and requests, with ids going on', async () => {
    const dir = tempDir();
    const first = await startDev(dir);
    const issue = await step(first, 'github.create_issue', { owner: 'octocat', repo: 'hello-world', title: 'Before the restart' });
    const gist = await step(first, 'github.create_gist', { description: 'kept', files: { 'a.txt': { content: 'hi' } } });
    const repo = await step(first, 'github.create_repository', { name: 'second-repo' });
    expect(repo.body.ok, JSON.stringify(repo.body)).toBe(true);
    const subscribe = {
      connectionId: first.sandbox!.demo.github.id,
      trigger: 'github.new_issue',
      agentId: 'my-agent',
      repository: demo.repository,
    };
    expect((await call(first, 'POST', '/subscriptions', subscribe)).status).toBe(201);
    const client = await step(first, 'contentsnare.create_client', { name: 'Ann Example', email: 'ann@example.com' }, 'contentsnare');
    expect(client.body.ok, JSON.stringify(client.body)).toBe(true);
    const snareSubscribe = {
      connectionId: first.sandbox!.demo.contentsnare.id,
      trigger: 'contentsnare.request_completed',
      agentId: 'my-agent',
    };
    expect((await call(first, 'POST', '/subscriptions', snareSubscribe)).status).toBe(201);
    const snareHooksBefore = await snareHooks(first);
    expect(snareHooksBefore.map((h) => h.subscriptions)).toEqual([['request_completed']]);
    const hooksBefore = (await (
      await fetch(`${first.sandbox!.githubUrl}/repos/${demo.repository}/hooks`, {
        headers: { authorization: `Bearer ${demo.githubToken}` },
      })
    ).json()) as Array<{ id: number }>;
    expect(hooksBefore).toHaveLength(1);
    await first.close();

    const second = await startDev(dir);
    const listed = (await gh(second, `/repos/${demo.repository}/issues`)).data;
    expect(listed.map((i: { title: string }) => i.title)).toContain('Before the restart');
    expect((await gh(second, `/gists/${String(gist.body.data.id)}`)).data.description).toBe('kept');
    expect((await gh(second, '/user/repos')).data.map((r: { name: string }) => r.name)).toContain('second-repo');
    // The issue's URL names the simulated host's new port, not the old one.
    expect((await gh(second, `/repos/${demo.repository}/issues/1`)).data.url).toContain(second.sandbox!.githubUrl);
    const next = await step(second, 'github.create_issue', { owner: 'octocat', repo: 'hello-world', title: 'After the restart' });
    expect(next.body.data.number).toBe(issue.body.data.number + 1);
    expect(next.body.data.id).toBeGreaterThan(issue.body.data.id);
    const hooksAfter = (await (
      await fetch(`${second.sandbox!.githubUrl}/repos/${demo.repository}/hooks`, {
        headers: { authorization: `Bearer ${demo.githubToken}` },
      })
    ).json()) as Array<{ id: number }>;
    expect(hooksAfter.map((h) => h.id)).toEqual(hooksBefore.map((h) => h.id));
    // The banner's subscribe command pasted again after the restart: the same subscription, said so.
    const again = await call(second, 'POST', '/subscriptions', subscribe);
    expect(again.status).toBe(200);
    expect(again.body.existing).toBe(true);
    // The collection service's webhook is kept too, so its deliveries go on after the restart.
    expect(await snareHooks(second)).toEqual(snareHooksBefore);
    // Clients are kept, and a new one gets a new id.
    const clients = (await snare(second, 'clients')).data.results as Array<{ id: string; email: string }>;
    expect(clients.map((c) => c.email)).toContain('ann@example.com');
    const other = await step(second, 'contentsnare.create_client', { name: 'Bo Example', email: 'bo@example.com' }, 'contentsnare');
    expect(other.body.ok).toBe(true);
    expect(other.body.data.id).not.toBe(client.body.data.id);
    const request = await step(
      second,
      'contentsnare.create_request',
      { name: 'Documents', client_email: 'bo@example.com', template_name: 'Onboarding' },
      'contentsnare',
    );
    expect(request.body.ok, JSON.stringify(request.body)).toBe(true);
    expect((await snare(second, `requests/${String(request.body.data.id)}`)).status).toBe(200);
    expect((await snare(second, 'requests')).data.results.map((r: { id: string }) => r.id)).toContain(request.body.data.id);
    // Two starts, and each issue now delivered to the subscription's hook: more than the default 30 s on busy cores.
  }, 90_000);

  it('keeps the state in the data dir, owner-only, in one file that names no port; an unreadable file is set aside and the banner says so', async () => {
    const dir = tempDir();
    const rt = await startDev(dir);
    const path = join(dir, sandboxStateFileName);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toContain(rt.sandbox!.githubUrl);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await rt.close();
    writeFileSync(path, '{"version": 1, "github": ');
    const again = await startDev(dir);
    expect(existsSync(`${path}.unreadable`)).toBe(true);
    expect(sandboxBanner(again).join('\n')).toContain('not JSON');
    expect((await gh(again, `/repos/${demo.repository}`)).status).toBe(200);
  });
});

describe('the sandbox state file', () => {
  it('writes nothing over its bound and keeps the last state it wrote', () => {
    const path = join(tempDir(), 'state.json');
    const file = new SandboxStateFile(path, z.object({ n: z.number() }), 64);
    expect(file.save(JSON.stringify({ n: 1 }))).toBe(true);
    expect(file.save(JSON.stringify({ n: 2, pad: 'x'.repeat(100) }))).toBe(false);
    expect(file.load()).toEqual({ state: { n: 1 } });
  });

  it('sets aside a state of another shape instead of starting from it', () => {
    const path = join(tempDir(), 'state.json');
    writeFileSync(path, JSON.stringify({ n: 'one' }));
    const loaded = new SandboxStateFile(path, z.object({ n: z.number() }), 1024).load();
    expect(loaded.state).toBeUndefined();
    expect(loaded.problem).toContain('moved aside');
    expect(existsSync(`${path}.unreadable`)).toBe(true);
  });
});
