import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTriggerCommand } from '../../local/cli/trigger';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';
import { snareTriggerIds } from '../../shared/domain/triggers';
import { until } from '../helpers/runtime-support';

/**
 * The collection-service triggers through the whole local runtime (`npm run dev`: the real
 * server, intake, queue, dispatch and poller on one port, with the simulated partner API
 * posting its webhooks to the runtime's PUBLIC_URL), checked from outside: only HTTP to the
 * runtime, the simulated service's partner API and the agent-runtime inbox.
 */
const key = 'snare-sandbox-platform-key-0123456789abcdef';
let rt: LocalRuntime;
let dir: string;

afterAll(async () => {
  await rt?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function service(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${rt.sandbox?.contentsnareUrl}/partner_api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${demo.contentsnareToken}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.status === 204 ? {} : res.json();
}

/** A port free now: the simulated service posts to PUBLIC_URL, which must name the runtime's real port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const inbox = async (): Promise<Array<{ body: any }>> => (await call('GET', '/sandbox/inbox')).body.events;

describe('collection-service triggers from npm run dev, checked from outside', () => {
  it('each trigger, subscribed on the demo connection, reaches the agent runtime once with its record as the API reports it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'snare-dev-'));
    const port = await freePort();
    rt = await startLocalRuntime({
      env: { DATA_DIR: dir, PORT: String(port), PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '1', LOG_LEVEL: 'WARN' },
      write: () => {},
      sandbox: true,
    });
    const connectionId = rt.sandbox?.demo.contentsnare.id as string;
    for (const trigger of snareTriggerIds) {
      const sub = await call('POST', '/subscriptions', { connectionId, trigger, agentId: 'onboarding-agent' });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    }
    const hooks = (await service('GET', '/webhooks')).results;
    expect(hooks).toHaveLength(1);
    expect([...hooks[0].subscriptions].sort()).toEqual(snareTriggerIds.map((t) => t.slice('contentsnare.'.length)).sort());

    for (const trigger of snareTriggerIds) {
      const lines: string[] = [];
      const code = await runTriggerCommand([trigger, '--url', rt.url, '--wait', '--timeout', '20'], {
        env: { PLATFORM_API_KEY: key },
        out: (l) => lines.push(l),
      });
      expect(code, lines.join('\n')).toBe(0);
    }
    const events = await inbox();
    expect(events.map((e) => e.body.trigger).sort()).toEqual([...snareTriggerIds].sort());
    const viewed = events.find((e) => e.body.trigger === 'contentsnare.request_viewed')?.body.event;
    // The record as the API answers it (with its pages), not the delivery's flat body.
    expect(viewed.request).toMatchObject({ id: 'req_ex_viewed', status: 'published', pages: expect.any(Array) });
  }, 120_000);

  it('an outside check that forges, repeats and drops deliveries finds nothing forged dispatched, nothing twice and nothing lost', async () => {
    const hook = (await service('GET', '/webhooks')).results[0];
    const hookUrl: string = hook.url;
    const before = (await inbox()).length;

    // A real request, published and then completed through the partner API: the service posts both.
    const made = await service('POST', '/requests', {
      name: 'Outside check',
      client_email: 'check@outside.example',
      client_full_name: 'Outside Check',
      request_template_name: 'Onboarding',
      status: 'published',
    });
    await until('the publication', async () => (await inbox()).some((e) => e.body.event.request?.id === made.id));

    // Forged: the body claims completion and another name; the API says published.
    const forged = { event_name: 'request_completed', id: made.id, name: 'Forged', status: 'completed' };
    // Repeated: the publication delivered three more times, as the service sends it.
    const repeat = { event_name: 'request_published', id: made.id, name: made.name, status: 'published' };
    for (const body of [
      forged,
      repeat,
      repeat,
      repeat,
      { ...forged, event_name: 'client_updated', id: made.client.id, full_name: 'Mallory' },
    ]) {
      const res = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBeLessThan(300);
    }
    // Dropped: the hook is off while the request is completed, so the service posts nothing.
    await service('PUT', `/webhooks/${hook.id}`, { url: hookUrl, enabled: false, subscriptions: hook.subscriptions });
    await service('PUT', `/requests/${made.id}`, { status: 'completed' });
    await service('PUT', `/webhooks/${hook.id}`, { url: hookUrl, enabled: true, subscriptions: hook.subscriptions });

    // The poller's recovery check finds the completion.
    await until(
      'the lost completion recovered',
      async () => (await inbox()).some((e) => e.body.trigger === 'contentsnare.request_completed' && e.body.event.request?.id === made.id),
      30_000,
    );
    await new Promise((r) => setTimeout(r, 2500));
    const mine = (await inbox()).slice(0, (await inbox()).length - before).map((e) => e.body);
    const about = mine.filter((b) => b.event.request?.id === made.id);
    expect(about.map((b) => b.trigger).sort()).toEqual(['contentsnare.request_completed', 'contentsnare.request_published']);
    expect(JSON.stringify(about)).not.toContain('Forged');
    // A client the runtime had not seen is announced as the API shows it, never as the body claimed.
    expect(JSON.stringify(mine)).not.toContain('Mallory');
    for (const b of mine.filter((x) => x.event.client?.id === made.client.id)) expect(b.event.client.full_name).toBe('Outside Check');
    expect(about.find((b) => b.trigger === 'contentsnare.request_completed').event.request.status).toBe('completed');
  }, 120_000);
});
