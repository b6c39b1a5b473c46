import { describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { routes as toolStepRoutes } from '../../functions/tool-step/routes';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { createRouter } from '../../shared/http/router';
import { resolveScopedKey } from '../../shared/keys/scoped-keys';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

/**
 * A scoped key for a shared connection, bound to one agent, tries to reach another agent's
 * subscriptions and events: it sees none of them, cannot aim a subscription at another
 * agent's inbox, and learns nothing of what it may not see.
 */

const token = 'ghp_agentBoundKeysTestToken000000000000';
const host = useFakeCodeHost({ [token]: 'octocat' }, { env: { PUBLIC_URL: 'https://hooks.example.test' } });
const repository = 'octocat/hello-world';

async function setup() {
  const t = await host.context();
  const call = platformApiCaller(t.ctx);
  const shared = await t.connect({ label: 'shared' }, token);
  const sub = (agentId: string) => ({ connectionId: shared.id, trigger: 'github.new_issue', agentId, repository });
  const mine = await call('POST', '/subscriptions', sub('agent-mine'));
  const theirs = await call('POST', '/subscriptions', sub('agent-theirs'));
  expect([mine.status, theirs.status]).toEqual([201, 201]);
  const made = await call('POST', '/keys', { label: 'mine only', connections: [shared.id], agents: ['agent-mine'] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const asKey = (method: string, path: string, body?: unknown) => call(method, path, body, `Bearer ${made.body.key}`);
  const event = (id: string, s: Record<string, any>): TriggerEvent => ({
    id,
    trigger: 'github.new_issue',
    subscriptionId: s.id,
    agentId: s.agentId,
    connectionId: shared.id,
    deliveryId: `guid-${id}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { repository: { full_name: repository, owner: { login: 'octocat' } }, issue: { number: 1 } },
  });
  await enqueueEvents(t.ctx, [event('evt_mine', mine.body), event('evt_theirs', theirs.body)]);
  return { t, call, asKey, shared, made, sub, mine: mine.body, theirs: theirs.body };
}

describe('scoped keys bound to agents', () => {
  it('are made with their agents, listed with them, and refuse a bad agents list naming the field', async () => {
    const { call, made, shared } = await setup();
    expect(made.body).toMatchObject({ connections: [shared.id], agents: ['agent-mine'] });
    expect((await call('GET', '/keys')).body.keys[0]).toMatchObject({ id: made.body.id, agents: ['agent-mine'] });
    for (const agents of [[], [''], 'agent-mine', ['x'.repeat(257)]]) {
      const bad = await call('POST', '/keys', { label: 'bad', connections: [shared.id], agents });
      expect(bad.status, JSON.stringify(agents)).toBe(400);
      expect(bad.body.error.details.fields[0].field).toMatch(/^agents/);
    }
  });

  it("list, read and delete only their agents' subscriptions; another agent's answers 404 as an unknown id", async () => {
    const { call, asKey, mine, theirs } = await setup();
    expect((await asKey('GET', '/subscriptions')).body.subscriptions.map((s: { id: string }) => s.id)).toEqual([mine.id]);
    expect((await asKey('GET', `/subscriptions?connectionId=${mine.connectionId}`)).body.subscriptions).toHaveLength(1);
    expect((await asKey('GET', `/subscriptions/${mine.id}`)).status).toBe(200);
    for (const method of ['GET', 'DELETE']) {
      const res = await asKey(method, `/subscriptions/${theirs.id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: `No subscription ${theirs.id}` } });
    }
    expect((await call('GET', `/subscriptions/${theirs.id}`)).status).toBe(200);
  });

  it('cannot subscribe another agent (403, nothing made) but subscribes its own', async () => {
    const { t, asKey, sub, shared } = await setup();
    const before = host.github.requests.length;
    const refused = await asKey('POST', '/subscriptions', { ...sub('agent-other'), trigger: 'github.new_star' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'forbidden', details: { agentId: 'agent-other' } });
    expect(host.github.requests.length).toBe(before);
    expect(await new SubscriptionRepo(t.ctx.store).list(shared.id)).toHaveLength(2);
    const allowed = await asKey('POST', '/subscriptions', { ...sub('agent-mine'), trigger: 'github.new_star' });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
  });

  it("list, read and replay only their agents' events; another agent's event answers 404 as an unknown id", async () => {
    const { t, asKey } = await setup();
    expect((await asKey('GET', '/events')).body.events.map((e: { id: string }) => e.id)).toEqual(['evt_mine']);
    expect((await asKey('GET', '/events?agentId=agent-theirs')).status).toBe(403);
    expect((await asKey('GET', '/events/evt_mine')).status).toBe(200);
    const theirs = await asKey('GET', '/events/evt_theirs');
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ error: { code: 'not_found', message: 'No event evt_theirs in the history (events are kept 30 days)' } });
    const queued = t.queues.queue.size();
    expect((await asKey('POST', '/events/evt_theirs/replay')).status).toBe(404);
    expect(t.queues.queue.size()).toBe(queued);
    expect((await asKey('POST', '/events/evt_mine/replay')).status).toBe(202);
  });

  it("read over MCP only their agents' subscriptions of a connection", async () => {
    const { t, made, shared, mine } = await setup();
    const router = createRouter(toolStepRoutes(t.ctx, allProviderTools()), {
      platformApiKey: t.ctx.platformApiKey,
      scopedKey: (presented) => resolveScopedKey(t.ctx, presented),
    });
    const res = await router({
      method: 'POST',
      path: '/mcp',
      headers: {
        authorization: `Bearer ${made.body.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      query: new URLSearchParams(),
      body: Buffer.from(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'resources/read',
          params: { uri: `agent-integrations://connections/${shared.id}/subscriptions` },
        }),
      ),
    });
    const answer = JSON.parse(/^data: (.*)$/m.exec(String(res.body))?.[1] ?? String(res.body));
    const listed = JSON.parse(answer.result.contents[0].text).subscriptions.map((s: { id: string }) => s.id);
    expect(listed).toEqual([mine.id]);
  });

  it('without agents, act for every agent of their connections, as before', async () => {
    const { call, shared } = await setup();
    const key = (await call('POST', '/keys', { label: 'all agents', connections: [shared.id] })).body.key as string;
    expect((await call('GET', '/subscriptions', undefined, `Bearer ${key}`)).body.subscriptions).toHaveLength(2);
    expect((await call('GET', '/events', undefined, `Bearer ${key}`)).body.events).toHaveLength(2);
  });
});
