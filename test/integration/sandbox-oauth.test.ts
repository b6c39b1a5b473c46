import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';

/**
 * `npm run dev`: the OAuth connect flow of each provider can be tried without an account. The
 * simulated provider's authorize page approves at once as the demo user; the callback stores a
 * connection whose token the simulated service takes.
 */

const key = 'sandbox-oauth-test-platform-key-0123456789abcdef';
const [owner, repo] = demo.repository.split('/') as [string, string];

let rt: LocalRuntime;
let dir: string;

const startDev = () =>
  startLocalRuntime({
    env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
    write: () => {},
    sandbox: true,
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-oauth-'));
  rt = await startDev();
}, 60_000);

afterAll(async () => {
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A browser through the flow: our start page, the provider's authorize page, our callback (with the start's cookie). */
async function connect(provider: 'github' | 'contentsnare'): Promise<{ connectionId: string; authorizePage: URL }> {
  const begun = await call('POST', `/oauth/${provider}/authorize`, { label: `${provider} by OAuth` });
  expect(begun.status, JSON.stringify(begun.body)).toBe(200);
  const start = await fetch(begun.body.authorizeUrl, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorizePage = new URL(start.headers.get('location') ?? '');
  const approved = await fetch(authorizePage, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const back = await fetch(approved.headers.get('location') ?? '', { redirect: 'manual', headers: { cookie, accept: 'application/json' } });
  const made = (await back.json()) as { connectionId: string };
  expect(back.status, JSON.stringify(made)).toBe(200);
  return { connectionId: made.connectionId, authorizePage };
}

describe('npm run dev: the OAuth flows of both providers', () => {
  it('connects the code host by OAuth, approved as the demo user at the simulated authorize page, and its token acts as that user', async () => {
    const { connectionId, authorizePage } = await connect('github');
    expect(authorizePage.origin).toBe(rt.sandbox?.githubUrl);
    expect(authorizePage.pathname).toBe('/login/oauth/authorize');
    const connection = (await call('GET', `/connections/${connectionId}`)).body;
    expect(connection).toMatchObject({ provider: 'github', authMethod: 'oauth', accountLogin: demo.githubLogin, status: 'connected' });
    const issue = await call('POST', '/tools/github.create_issue/invoke', {
      connectionId,
      input: { owner, repo, title: 'Opened through an OAuth connection' },
    });
    expect(issue.body).toMatchObject({ ok: true, data: { title: 'Opened through an OAuth connection' } });
  });

  it('connects the collection service by OAuth, approved as the demo account, and its token reads the partner API', async () => {
    const { connectionId, authorizePage } = await connect('contentsnare');
    expect(authorizePage.origin).toBe(rt.sandbox?.contentsnareUrl);
    expect(authorizePage.pathname).toBe('/oauth/authorization');
    const connection = (await call('GET', `/connections/${connectionId}`)).body;
    expect(connection).toMatchObject({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: demo.contentsnareAccount });
    const clients = await call('POST', '/tools/contentsnare.list_clients/invoke', { connectionId, input: {} });
    expect(clients.body).toMatchObject({ ok: true });
  });

  it('keeps the connections made through both flows working after a restart (new ports, the same clients and tokens)', async () => {
    const github = (await connect('github')).connectionId;
    const snare = (await connect('contentsnare')).connectionId;
    await rt.close();
    rt = await startDev();
    const issue = await call('POST', '/tools/github.create_issue/invoke', {
      connectionId: github,
      input: { owner, repo, title: 'After a restart' },
    });
    expect(issue.body).toMatchObject({ ok: true, data: { title: 'After a restart' } });
    const clients = await call('POST', '/tools/contentsnare.list_clients/invoke', { connectionId: snare, input: {} });
    expect(clients.body).toMatchObject({ ok: true });
  }, 90_000);
});
