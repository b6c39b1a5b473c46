import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '../../shared/polling/poll-once';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { httpApiCaller, type PlatformApiCall } from '../helpers/platform-api-caller';
import { platformKey, startRuntime, type TestRuntime } from '../helpers/runtime-support';

/**
 * An outside probe of the local runtime, in process and over HTTP as a client would: a
 * hostile server behind a token connection's `apiBaseUrl` answers gzip bombs to a tool step,
 * a connection check and a poll, and a 300 KB login; a connection aims at the agent
 * runtime's origin; 300 wrong console keys arrive at once. Every answer is the refusal the
 * security invariants name, and the runtime's memory grows by less than 250 MB in all.
 */
const mib = 1024 * 1024;
// 1 MB of gzip that inflates to 1 GiB: one 16 MiB member repeated (gzip allows concatenated members).
const bomb = (() => {
  const member = zlib.gzipSync(Buffer.alloc(16 * mib), { level: 9 });
  return Buffer.concat(Array.from({ length: 64 }, () => member));
})();

let hostile: Server;
let hostileUrl: string;
let armed = false;
let agentRuntime: FakeServer;
let rt: TestRuntime;
let call: PlatformApiCall;
let peakRss = 0;
let baseRss = 0;
let sampler: ReturnType<typeof setInterval>;

beforeAll(async () => {
  // `/ok/...`: a code host until armed, then bombs; `/big/user`: a 300 KB login; `/bomb/...`: bombs always.
  hostile = createServer((req, res) => {
    req.resume();
    const path = req.url ?? '/';
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === '/big/user') return json({ login: 'a'.repeat(300 * 1024), id: 1 });
    if (path.startsWith('/bomb/') || (armed && !path.endsWith('/user'))) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      return res.end(bomb);
    }
    if (path.endsWith('/user')) return json({ login: 'probe', id: 4242 });
    return json([]);
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
  agentRuntime = await startFakeHttp(() => ({ status: 200, body: {} }));
  rt = await startRuntime({ AGENT_RUNTIME_URL: `${agentRuntime.url}/events` }, false);
  call = httpApiCaller(rt.url, platformKey);
  baseRss = process.memoryUsage().rss;
  peakRss = baseRss;
  sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 5);
});

afterAll(async () => {
  clearInterval(sampler);
  await rt?.dispose();
  await agentRuntime?.close();
  hostile?.closeAllConnections();
  await new Promise<void>((r) => hostile?.close(() => r()));
});

describe('an outside probe of the local runtime', () => {
  let connectionId: string;

  it('a connection check answered with a gzip bomb is upstream_error naming the limit', async () => {
    const r = await call('POST', '/connections', { provider: 'github', token: 'ghp_probe', apiBaseUrl: `${hostileUrl}/bomb` });
    expect(r).toMatchObject({ status: 502, body: { error: { code: 'upstream_error', details: { limitBytes: expect.any(Number) } } } });
  });

  it('a 300 KB login is refused and the listing stays whole', async () => {
    const r = await call('POST', '/connections', { provider: 'github', token: 'ghp_probe', apiBaseUrl: `${hostileUrl}/big` });
    expect(r).toMatchObject({ status: 502, body: { error: { code: 'upstream_error', details: { field: 'login' } } } });
    expect(await call('GET', '/connections')).toMatchObject({ status: 200, body: { connections: [] } });
  });

  it('a connection aimed at the agent runtime is refused before anything is sent there', async () => {
    const r = await call('POST', '/connections', { provider: 'github', token: 'ghp_probe', apiBaseUrl: agentRuntime.url });
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'forbidden', details: { reason: 'operator_origin' } } } });
    expect(agentRuntime.requests).toHaveLength(0);
  });

  it('a tool step answered with a gzip bomb is upstream_error naming the limit', async () => {
    const created = await call('POST', '/connections', { provider: 'github', token: 'ghp_probe', apiBaseUrl: `${hostileUrl}/ok` });
    expect(created.status).toBe(201);
    connectionId = created.body.id as string;
    const sub = await call('POST', '/subscriptions', { connectionId, agentId: 'probe', trigger: 'github.new_gist' });
    expect(sub.status).toBe(201);
    armed = true;
    const r = await call('POST', '/tools/github.get_repository/invoke', { connectionId, input: { owner: 'octo', repo: 'hello' } });
    expect(r.body).toMatchObject({ ok: false, error: { code: 'upstream_error', details: { limitBytes: expect.any(Number) } } });
  });

  it('a poll answered with a gzip bomb fails that source only', async () => {
    const report = await pollOnce(rt.ctx);
    expect(report).toMatchObject({ failed: 1 });
  });

  it('300 wrong console keys in quick waves: nearly all 429 with Retry-After, a handful of log lines', async () => {
    const linesBefore = rt.lines.length;
    // Waves of 50: the runtime closes connections past 256 open at once (local/server-limits.ts).
    const guess = (i: number) =>
      fetch(`${rt.url}/console/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ key: `wrong-key-${i}-0123456789abcdefghijklmn` }).toString(),
        redirect: 'manual',
      }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text() }));
    const answers: Array<{ status: number; retryAfter: string | null }> = [];
    for (let wave = 0; wave < 6; wave++) answers.push(...(await Promise.all(Array.from({ length: 50 }, (_, i) => guess(wave * 50 + i)))));
    // Five compared at once, then one more per doubled wait that passes while the waves run
    // (1 s, 2 s, 4 s ...): fifteen would take over 17 minutes, however slow the machine.
    expect(answers.filter((a) => a.status === 401).length).toBeLessThanOrEqual(15);
    expect(answers.filter((a) => a.status === 429 && a.retryAfter !== null).length).toBeGreaterThanOrEqual(285);
    const signInLines = rt.lines.slice(linesBefore).filter((l) => l.includes('console sign-in'));
    // One line when the refusals start, one summary per further minute.
    expect(signInLines.length).toBeLessThanOrEqual(3);
  });

  it('kept the memory growth of the whole probe under 250 MB', () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    expect((peakRss - baseRss) / mib).toBeLessThan(250);
  });
});
