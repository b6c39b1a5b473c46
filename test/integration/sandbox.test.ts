import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTriggerCommand } from '../../local/cli/trigger';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';
import { sandboxBanner } from '../../local/sandbox/banner';
import { signBody } from '../../shared/dispatch/sign-event';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { until } from '../helpers/runtime-support';

const key = 'sandbox-test-platform-key-0123456789abcdef';

async function call(rt: LocalRuntime, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const started: Array<{ rt: LocalRuntime; dir?: string }> = [];
afterEach(async () => {
  for (const s of started.splice(0)) {
    await s.rt.close();
    if (s.dir) rmSync(s.dir, { recursive: true, force: true });
  }
});

async function startDev(dataDir: string, env: Record<string, string> = {}): Promise<LocalRuntime> {
  const rt = await startLocalRuntime({
    env: { DATA_DIR: dataDir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN', ...env },
    write: () => {},
    sandbox: true,
  });
  started.push({ rt });
  return rt;
}

describe('npm run dev: the sandbox', () => {
  it('takes a newcomer from subscribe to a trigger event in the inbox and a tool-step result, without an account', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    const rt = await startDev(dir);
    started[0]!.dir = dir;
    const s = rt.sandbox!;
    expect(rt.config.agentRuntimeUrl).toBe(`${rt.url}/sandbox/agent-runtime`);
    expect(rt.config.github.apiUrl).toBe(s.githubUrl);

    const sub = await call(rt, 'POST', '/subscriptions', {
      connectionId: s.demo.github.id,
      trigger: 'github.new_issue',
      agentId: 'my-agent',
      repository: demo.repository,
    });
    expect(sub.status).toBe(201);
    expect(sub.body.endpointId).toMatch(/^ep_/);

    const lines: string[] = [];
    const code = await runTriggerCommand(['github.new_issue', '--url', rt.url], {
      env: { PLATFORM_API_KEY: key },
      out: (l) => lines.push(l),
    });
    expect(code, lines.join('\n')).toBe(0);
    await until('the event in the inbox', async () => (await call(rt, 'GET', '/sandbox/inbox')).body.count === 1);
    const inbox = await call(rt, 'GET', '/sandbox/inbox');
    expect(inbox.body.events[0]).toMatchObject({
      signatureValid: true,
      body: { trigger: 'github.new_issue', subscriptionId: sub.body.id, agentId: 'my-agent' },
    });
    expect(inbox.body.events[0].body.event.repository.full_name).toBe(demo.repository);

    const issue = await call(rt, 'POST', '/tools/github.create_issue/invoke', {
      connectionId: s.demo.github.id,
      input: { owner: 'octocat', repo: 'hello-world', title: 'From the sandbox' },
    });
    expect(issue.body).toMatchObject({ ok: true, data: { title: 'From the sandbox' } });
    const client = await call(rt, 'POST', '/tools/contentsnare.create_client/invoke', {
      connectionId: s.demo.contentsnare.id,
      input: { name: 'Ann Example', email: 'ann@example.com' },
    });
    expect(client.body).toMatchObject({ ok: true, data: { email: 'ann@example.com', full_name: 'Ann Example' } });

    // The inbox is behind the platform key.
    expect((await fetch(`${rt.url}/sandbox/inbox`)).status).toBe(401);
  });

  it('npm run trigger --set changes the example, --wait reports the delivery; a typo gets a did-you-mean', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    const rt = await startDev(dir);
    started[0]!.dir = dir;
    const s = rt.sandbox!;
    await call(rt, 'POST', '/subscriptions', {
      connectionId: s.demo.github.id,
      trigger: 'github.new_issue',
      agentId: 'my-agent',
      repository: demo.repository,
    });
    const lines: string[] = [];
    const run = (...argv: string[]) =>
      runTriggerCommand([...argv, '--url', rt.url], { env: { PLATFORM_API_KEY: key }, out: (l) => lines.push(l) });
    expect(
      await run('github.new_issue', '--set', 'issue.title=Hello sandbox', '--set', 'issue.number=4242', '--wait'),
      lines.join('\n'),
    ).toBe(0);
    expect(lines.join('\n')).toMatch(/Delivered: event evt_\S+ reached the agent runtime at .* \(signature valid\)/);
    const [event] = (await call(rt, 'GET', '/sandbox/inbox')).body.events;
    expect(event.body.event.issue).toMatchObject({ title: 'Hello sandbox', number: 4242 });

    lines.length = 0;
    expect(await run('github.new_isue')).toBe(2);
    expect(lines[0]).toMatch(/^unknown trigger github\.new_isue\. Did you mean github\.new_issue\?\n/);
  });

  it('npm run trigger --wait exits 1 when the event does not reach the inbox in time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    // The events go to an agent runtime elsewhere (nothing listens there): the inbox stays empty.
    const rt = await startDev(dir, { AGENT_RUNTIME_URL: 'http://127.0.0.1:9/nowhere' });
    started[0]!.dir = dir;
    await call(rt, 'POST', '/subscriptions', {
      connectionId: rt.sandbox!.demo.github.id,
      trigger: 'github.new_issue',
      agentId: 'a',
      repository: demo.repository,
    });
    const lines: string[] = [];
    let t = 0;
    const code = await runTriggerCommand(['github.new_issue', '--wait', '--timeout', '5', '--url', rt.url], {
      env: { PLATFORM_API_KEY: key },
      out: (l) => lines.push(l),
      // A test clock: each poll moves it a second.
      now: () => t,
      sleep: async () => {
        t += 1000;
      },
    });
    expect(code).toBe(1);
    expect(lines.join('\n')).toContain('Not delivered within 5 s');
  });

  it('keeps the same demo connections across restarts, and they still work on the new ports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    const first = await startDev(dir);
    const ids = [first.sandbox!.demo.github.id, first.sandbox!.demo.contentsnare.id, first.sandbox!.demo.githubApp?.id];
    // The App connection mints an installation token in the first run, kept in its data dir.
    const before = await call(first, 'POST', '/tools/github.get_repository/invoke', {
      connectionId: ids[2],
      input: { owner: 'octocat', repo: 'hello-world' },
    });
    expect(before.body).toMatchObject({ ok: true });
    await first.close();
    started.length = 0;
    const second = await startDev(dir);
    started[0]!.dir = dir;
    expect([second.sandbox!.demo.github.id, second.sandbox!.demo.contentsnare.id, second.sandbox!.demo.githubApp?.id]).toEqual(ids);
    expect((await call(second, 'GET', '/connections')).body.connections).toHaveLength(3);
    for (const connectionId of [ids[0], ids[2]]) {
      // The App is a new one each run: the kept installation token is refused once, and a fresh one minted.
      const repo = await call(second, 'POST', '/tools/github.get_repository/invoke', {
        connectionId,
        input: { owner: 'octocat', repo: 'hello-world' },
      });
      expect(repo.body, JSON.stringify(repo.body)).toMatchObject({ ok: true, data: { full_name: 'octocat/hello-world' } });
    }
  });

  it('never adopts a connection it did not make, even one labelled like a demo connection, nor rewrites its token origin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    // npm start with real connections in the same DATA_DIR (set on purpose: DATA_DIR wins).
    const plain = await startLocalRuntime({ env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, LOG_LEVEL: 'WARN' }, write: () => {} });
    const repo = new ConnectionRepo(plain.ctx.store);
    const now = new Date().toISOString();
    const real = { authMethod: 'token' as const, status: 'connected' as const, repositories: [], createdAt: now, updatedAt: now };
    await writeStoredToken(
      plain.ctx.secrets,
      { id: 'conn_realgithub', provider: 'github' },
      {
        accessToken: 'ghp_realUserToken0123456789',
        origin: 'https://api.github.com',
      },
    );
    await repo.create({ ...real, id: 'conn_realgithub', provider: 'github', accountLogin: 'someone' });
    await writeStoredToken(
      plain.ctx.secrets,
      { id: 'conn_realsnare', provider: 'contentsnare' },
      {
        accessToken: 'real-snare-token',
        origin: 'https://api.contentsnare.com',
      },
    );
    await repo.create({ ...real, id: 'conn_realsnare', provider: 'contentsnare', accountLogin: 'Real Admin', authMethod: 'oauth' });
    // Labels are anyone's to set; the mark is not.
    expect((await call(plain, 'PATCH', '/connections/conn_realgithub', { label: demo.githubLabel })).status).toBe(200);
    expect((await call(plain, 'PATCH', '/connections/conn_realsnare', { label: demo.contentsnareLabel })).status).toBe(200);
    const refused = await call(plain, 'PATCH', '/connections/conn_realgithub', { sandboxDemo: true });
    expect(refused.status).toBe(400);
    await plain.close();

    const rt = await startDev(dir);
    started[0]!.dir = dir;
    const s = rt.sandbox!;
    expect(s.demo.github.id).not.toBe('conn_realgithub');
    expect(s.demo.contentsnare.id).not.toBe('conn_realsnare');
    expect((await readStoredToken(rt.ctx.secrets, { id: 'conn_realgithub', provider: 'github' }))?.origin).toBe('https://api.github.com');
    expect((await readStoredToken(rt.ctx.secrets, { id: 'conn_realsnare', provider: 'contentsnare' }))?.origin).toBe(
      'https://api.contentsnare.com',
    );
    const listed = (await call(rt, 'GET', '/connections')).body.connections as Array<{ id: string; sandboxDemo?: boolean }>;
    expect(
      listed
        .filter((c) => c.sandboxDemo)
        .map((c) => c.id)
        .sort(),
    ).toEqual([s.demo.github.id, s.demo.contentsnare.id, s.demo.githubApp?.id].sort());
    // The real token is still refused for the simulated host, as for any other origin.
    const used = await call(rt, 'POST', '/tools/github.get_repository/invoke', {
      connectionId: 'conn_realgithub',
      input: { owner: 'octocat', repo: 'hello-world' },
    });
    expect(used.body).toMatchObject({ ok: false, error: { code: 'token_origin_mismatch' } });
  });

  it('keeps its own data directory (.data/sandbox) unless DATA_DIR is set, apart from npm start, and says so in the banner', async () => {
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-cwd-'));
    process.chdir(dir);
    try {
      const rt = await startLocalRuntime({
        env: { PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
        write: () => {},
        sandbox: true,
      });
      started.push({ rt });
      expect(rt.config.dataDir).toBe(resolve(dir, '.data', 'sandbox'));
      expect(sandboxBanner(rt).join('\n')).toContain(`data dir:                ${resolve(dir, '.data', 'sandbox')}`);
      await rt.close();
      started.length = 0;
      const plain = await startLocalRuntime({ env: { PORT: '0', PLATFORM_API_KEY: key, LOG_LEVEL: 'WARN' }, write: () => {} });
      started.push({ rt: plain, dir });
      expect(plain.config.dataDir).toBe(resolve(dir, '.data'));
      expect((await call(plain, 'GET', '/connections')).body.connections).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it('the inbox takes only posts signed by the dispatch: unsigned or wrongly signed ones get 401 and are not stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    const rt = await startDev(dir);
    started[0]!.dir = dir;
    const body = JSON.stringify({ id: 'evt_x', trigger: 'github.new_issue', event: {} });
    const post = (headers: Record<string, string>) =>
      fetch(`${rt.url}/sandbox/agent-runtime`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post({ 'x-signature-256': signBody('not-the-dispatch-secret', body) })).status).toBe(401);
    expect((await call(rt, 'GET', '/sandbox/inbox')).body.count).toBe(0);
    expect((await post({ 'x-signature-256': signBody(rt.config.dispatchSigningSecret!, body) })).status).toBe(200);
    expect((await call(rt, 'GET', '/sandbox/inbox')).body).toMatchObject({
      count: 1,
      events: [{ signatureValid: true, body: { id: 'evt_x' } }],
    });
  });

  it('every list of the simulated services lists what their single-resource endpoints serve, created resources included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    const rt = await startDev(dir);
    started[0]!.dir = dir;
    const s = rt.sandbox!;
    const gh = async (endpoint: string, query?: Record<string, string>) => {
      const r = await call(rt, 'POST', '/tools/github.api_call/invoke', {
        connectionId: s.demo.github.id,
        input: { method: 'GET', endpoint, ...(query ? { query } : {}) },
      });
      // A code-host error is ok:false with the status in details.
      return (r.body.ok ? r.body.data : { status: r.body.error.details?.status, data: undefined }) as { status: number; data: any };
    };
    const ids = (items: Array<Record<string, unknown>>, key = 'id') => items.map((i) => String(i[key]));

    // The banner's repository is the account's, listed and served.
    const repos = (await gh('/user/repos')).data as Array<{ full_name: string; id: number }>;
    expect(repos.map((r) => r.full_name)).toContain(demo.repository);
    for (const r of repos) expect((await gh(`/repos/${r.full_name}`)).data.id).toBe(r.id);
    expect((await gh('/repos/octocat/no-such-repo')).status).toBe(404);

    for (const [list, item] of [
      [`/repos/${demo.repository}/commits`, (c: any) => `/repos/${demo.repository}/commits/${c.sha}`],
      [`/repos/${demo.repository}/releases`, undefined],
      ['/gists', (g: any) => `/gists/${g.id}`],
      ['/users/octocat/gists', (g: any) => `/gists/${g.id}`],
    ] as const) {
      const listed = (await gh(list)).data as Array<Record<string, unknown>>;
      expect(listed.length, list).toBeGreaterThan(0);
      if (item) for (const one of listed) expect((await gh(item(one))).status, item(one)).toBe(200);
    }
    const runs = (await gh(`/repos/${demo.repository}/actions/runs`)).data.workflow_runs as Array<Record<string, unknown>>;
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect((await gh(`/repos/${demo.repository}/actions/runs/${String(run.id)}`)).data.id).toBe(run.id);

    // What a step creates is then listed, and served.
    const issue = await call(rt, 'POST', '/tools/github.create_issue/invoke', {
      connectionId: s.demo.github.id,
      input: { owner: 'octocat', repo: 'hello-world', title: 'Listed afterwards' },
    });
    expect(issue.body.ok).toBe(true);
    const found = (await gh('/search/issues', { q: `repo:${demo.repository} Listed afterwards` })).data.items as Array<
      Record<string, unknown>
    >;
    expect(found.map((i) => i.title)).toEqual(['Listed afterwards']);
    expect((await gh(`/repos/${demo.repository}/issues/${String(found[0]?.number)}`)).data.title).toBe('Listed afterwards');
    const gist = await call(rt, 'POST', '/tools/github.create_gist/invoke', {
      connectionId: s.demo.github.id,
      input: { description: 'made here', files: { 'a.txt': { content: 'hi' } } },
    });
    expect(gist.body.ok, JSON.stringify(gist.body)).toBe(true);
    expect(ids((await gh('/gists')).data)).toContain(String(gist.body.data.id));

    // The simulated collection service: each listed client, request and team member is served by its own endpoint.
    const created = await call(rt, 'POST', '/tools/contentsnare.create_client/invoke', {
      connectionId: s.demo.contentsnare.id,
      input: { name: 'Ann Example', email: 'ann@example.com' },
    });
    expect(created.body.ok).toBe(true);
    const snare = async (endpoint: string) =>
      (
        await call(rt, 'POST', '/tools/contentsnare.api_call/invoke', {
          connectionId: s.demo.contentsnare.id,
          input: { method: 'GET', endpoint },
        })
      ).body.data as { status: number; data: any };
    for (const kind of ['clients', 'requests', 'team_members']) {
      const listed = (await snare(kind)).data.results as Array<Record<string, unknown>>;
      if (kind === 'clients') expect(ids(listed)).toContain(String(created.body.data.id));
      for (const one of listed) expect((await snare(`${kind}/${String(one.id)}`)).status, `${kind}/${String(one.id)}`).toBe(200);
    }
  });

  it('runs nothing of the sandbox under npm start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-'));
    const rt = await startLocalRuntime({ env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, LOG_LEVEL: 'WARN' }, write: () => {} });
    started.push({ rt, dir });
    expect(rt.sandbox).toBeUndefined();
    expect(rt.config.agentRuntimeUrl).toBeUndefined();
    expect((await call(rt, 'GET', '/sandbox/inbox')).status).toBe(404);
    expect((await call(rt, 'GET', '/connections')).body.connections).toEqual([]);
  });
});

describe('npm run dev: the simulated GitHub plays a GitHub App', () => {
  it('shows a github_app demo connection whose steps run with installation tokens, and connects another through the install flow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-app-'));
    const rt = await startDev(dir);
    started[0]!.dir = dir;
    const app = rt.sandbox!.demo.githubApp;
    expect(app).toMatchObject({ authMethod: 'github_app', accountLogin: demo.githubLogin, installation: { id: 1 } });
    expect(sandboxBanner({ url: rt.url, config: rt.config, sandbox: rt.sandbox }).join('\n')).toContain(`${app!.id} (github_app`);

    const repo = await call(rt, 'POST', '/tools/github.get_repository/invoke', {
      connectionId: app!.id,
      input: { owner: 'octocat', repo: 'hello-world' },
    });
    expect(repo.body).toMatchObject({ ok: true, data: { full_name: 'octocat/hello-world' } });

    const begun = await call(rt, 'POST', '/oauth/github-app/authorize', { label: 'clicked' });
    const start = await fetch(begun.body.authorizeUrl, { redirect: 'manual' });
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
    const back = await fetch(page.headers.get('location') ?? '', { redirect: 'manual', headers: { cookie, accept: 'application/json' } });
    const made = (await back.json()) as { connectionId?: string; status?: string };
    expect(made.status).toBe('connected');
    const connections = (await call(rt, 'GET', '/connections')).body.connections as Array<{
      id: string;
      authMethod: string;
      label?: string;
    }>;
    expect(connections.filter((c) => c.authMethod === 'github_app').map((c) => c.label)).toEqual(
      expect.arrayContaining(['clicked', 'Sandbox demo (simulated GitHub App)']),
    );
  }, 60_000);
});
