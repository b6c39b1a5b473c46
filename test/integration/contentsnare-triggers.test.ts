import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SnareHookRepo, tokenMatches } from '../../shared/providers/contentsnare/snare-hook';
import { createContentsnareTools } from '../../shared/providers/contentsnare/tools';
import { AppError } from '../../shared/domain/errors';
import type { TriggerEvent } from '../../shared/domain/model';
import { dispatchMessage } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import { fromQueueMessage } from '../../shared/dispatch/event-message';
import { isSnareReadBack } from '../../shared/providers/contentsnare/dispatch/read-back-job';
import { deleteSubscription } from '../../shared/subscriptions/delete-subscription';
import { invokeTool } from '../../shared/tools/invoke';
import { recoverMissedSnareDeliveries } from '../../shared/providers/contentsnare/polling/poll-contentsnare';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { stopTestDynamo } from '../helpers/dynamo';
import { startSnareWorld, type SnareWorld } from '../helpers/snare-world';

afterAll(stopTestDynamo);
const open: SnareWorld[] = [];
afterEach(async () => {
  for (const w of open.splice(0)) {
    expect(w.fake.problems).toEqual([]);
    await w.close();
  }
});

async function world(options: { scopes?: string[] } = {}): Promise<SnareWorld> {
  const w = await startSnareWorld(options);
  open.push(w);
  return w;
}

/**
 * The trigger events queued for dispatch since the last look (a message seen before, visible
 * again as the clock moved, is left out), once the dispatch consumer has worked the read-back
 * jobs the intake queued (all at once, as a batch is).
 */
async function queued(w: SnareWorld): Promise<TriggerEvent[]> {
  const events: TriggerEvent[] = [];
  for (;;) {
    const messages = (await w.t.receiveAll()).filter((m) => m.receiveCount === 1);
    const jobs = messages.filter((m) => isSnareReadBack(m.body));
    for (const m of messages) if (!isSnareReadBack(m.body)) events.push((await fromQueueMessage(w.t.ctx, m.body)).event);
    if (jobs.length === 0) return events;
    const q = w.t.queues.queue;
    await Promise.all(
      jobs.map(async (m) =>
        (await dispatchMessage(w.t.ctx, m, q, { work: providerWork })) === 'done' ? q.delete(m.receiptHandle) : undefined,
      ),
    );
  }
}

const count = (w: SnareWorld, key: string) => w.t.metrics.counts.get(key) ?? 0;

const api = (w: SnareWorld, method: string, path: string, body?: unknown) =>
  w.fake.webhooks.deliver === undefined
    ? Promise.reject(new Error('no fake'))
    : fetch(`${w.fake.url}/partner_api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/json', accept: 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (r) => (await r.json().catch(() => ({}))) as Record<string, any>);

async function newRequest(w: SnareWorld, status: 'draft' | 'published' = 'published') {
  const request = await api(w, 'POST', '/requests', {
    name: 'Onboarding Acme',
    client_email: 'ada@acme.example',
    client_full_name: 'Ada Client',
    request_template_name: 'Onboarding',
    status,
  });
  await w.fake.webhooks.settled();
  return request;
}

describe('registration at the partner API', () => {
  it('registers one webhook with the union of events, updates it with PUT (url sent) and deletes it with the last subscription', async () => {
    const w = await world();
    const a = await w.subscribe('contentsnare.request_completed');
    const log = () => w.fake.log.filter((e) => e.path.includes('/webhooks')).map((e) => `${e.method} ${e.status}`);
    expect(log()).toEqual(['POST 200']);
    const hook = [...w.fake.webhooks.hooks.values()][0];
    expect(hook?.subscriptions).toEqual(['request_completed']);
    expect(hook?.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:9/webhooks/contentsnare/${w.connection.id}/[A-Za-z0-9_-]{43}$`));

    const b = await w.subscribe('contentsnare.field_approved');
    // Same trigger again: the hook already carries it, nothing is asked.
    const c = await w.subscribe('contentsnare.field_approved', { template: 'Onboarding' });
    expect(log()).toEqual(['POST 200', 'PUT 200']);
    const put = w.fake.log.find((e) => e.method === 'PUT');
    expect(put?.json).toEqual({ url: hook?.url, enabled: true, subscriptions: ['field_approved', 'request_completed'] });
    expect(w.fake.webhooks.hooks.size).toBe(1);

    await deleteSubscription(w.t.ctx, a.id);
    expect([...w.fake.webhooks.hooks.values()][0]?.subscriptions).toEqual(['field_approved']);
    await deleteSubscription(w.t.ctx, b.id);
    expect(log()).toEqual(['POST 200', 'PUT 200', 'PUT 200']);
    const last = await deleteSubscription(w.t.ctx, c.id);
    expect(last.hook).toBe('deleted');
    expect(w.fake.webhooks.hooks.size).toBe(0);
    expect(await new SnareHookRepo(w.t.ctx.store).get(w.connection.id)).toBeUndefined();
  });

  it('two subscribes at once register one webhook carrying both events', async () => {
    const w = await world();
    await Promise.all([w.subscribe('contentsnare.request_published'), w.subscribe('contentsnare.client_created')]);
    expect(w.fake.webhooks.hooks.size).toBe(1);
    expect([...w.fake.webhooks.hooks.values()][0]?.subscriptions).toEqual(['client_created', 'request_published']);
  });

  it('a hook the service lost is registered again on the next subscribe', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_completed');
    w.fake.webhooks.hooks.clear();
    await w.subscribe('contentsnare.request_viewed');
    expect(w.fake.webhooks.hooks.size).toBe(1);
    expect([...w.fake.webhooks.hooks.values()][0]?.subscriptions).toEqual(['request_completed', 'request_viewed']);
  });

  it('a connection without the administration scope is told what to grant, and nothing is asked of the service', async () => {
    const w = await world({ scopes: ['read_clients', 'read_requests'] });
    const err = await w.subscribe('contentsnare.request_completed').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('forbidden');
    expect((err as AppError).message).toContain('`administration` scope');
    expect((err as AppError).message).toContain(`"connectionId": "${w.connection.id}", "scopes": ["administration"]`);
    expect(w.fake.log.filter((e) => e.path.includes('/webhooks'))).toEqual([]);
  });

  it('a user who is not an Admin is refused by the service (403 or 401) and told to reconnect as an Admin; no subscription is left', async () => {
    for (const status of [403, 401] as const) {
      const w = await world();
      w.fake.webhooks.grants.set(w.token, { role: 'editor' });
      w.fake.webhooks.refusalStatus = status;
      const err = (await w.subscribe('contentsnare.client_updated').catch((e: unknown) => e)) as AppError;
      expect(err.code).toBe('forbidden');
      expect(err.message).toContain('an Admin');
      expect(err.details).toMatchObject({ missingScope: 'administration', needsRole: 'admin' });
      expect(await new SubscriptionRepo(w.t.ctx.store).list()).toEqual([]);
    }
  });
});

describe('deliveries: token, read-back, once', () => {
  it('a wrong token, or an unknown connection, is answered 404, counted and logged without the token', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_published');
    const right = w.hookPath();
    const wrong = right.replace(/[^/]+$/, 'A'.repeat(43));
    const body = { event_name: 'request_published', id: 'req_1' };
    expect((await w.post(wrong, body)).status).toBe(404);
    expect((await w.post(right.slice(0, -1), body)).status).toBe(404);
    expect((await w.post(`/webhooks/contentsnare/conn_${'0'.repeat(32)}/${right.split('/').pop()}`, body)).status).toBe(404);
    expect(count(w, 'webhook_refused|reason=unknown_endpoint')).toBe(3);
    expect(w.t.logLines.filter((l) => l.includes('webhook delivery refused')).length).toBe(3);
    expect(w.t.logLines.join('\n')).not.toContain(right.split('/').pop());
    expect(await queued(w)).toEqual([]);
  });

  it('the token is compared as SHA-256 digests of equal length: a prefix, an extension or another token never matches', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_published');
    const hook = (await new SnareHookRepo(w.t.ctx.store).get(w.connection.id))!;
    const token = w.hookPath().split('/').pop() as string;
    expect(tokenMatches(hook, token)).toBe(true);
    for (const other of [token.slice(0, -1), `${token}x`, '', token.toUpperCase()]) expect(tokenMatches(hook, other)).toBe(false);
    expect(hook.tokenSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(hook)).not.toContain(token);
  });

  it('a real change reaches the subscription once, carrying the request as the API reports it', async () => {
    const w = await world();
    const sub = await w.subscribe('contentsnare.request_published');
    const request = await newRequest(w);
    const events = await queued(w);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ trigger: 'contentsnare.request_published', subscriptionId: sub.id, connectionId: w.connection.id });
    expect(events[0]?.event).toMatchObject({
      event_name: 'request_published',
      request: { id: request.id, status: 'published', name: 'Onboarding Acme' },
    });
    // GET /requests/{id} answers pages and counts, which the delivery does not carry: the event is the read-back.
    expect(events[0]?.event.request).toHaveProperty('pages');
  });

  it('a forged body is not dispatched as claimed: the event carries what the API says, and a claim the API does not bear out dispatches nothing', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_completed');
    await w.subscribe('contentsnare.client_updated');
    const request = await newRequest(w);
    await queued(w);
    // The request is published, not completed.
    const forged = { event_name: 'request_completed', id: request.id, status: 'completed', name: 'Pay to attacker' };
    // Accepted first (the read-back runs from the queue), then found out.
    expect(await w.post(w.hookPath(), forged)).toEqual({ status: 202, body: { ok: true, queued: true } });
    expect(await queued(w)).toEqual([]);
    expect(count(w, 'contentsnare_unconfirmed|event=request_completed,reason=state')).toBe(1);
    // A real client, with made-up details: the event carries the client's real details.
    const clientId = request.primary_client_id as string;
    await w.post(w.hookPath(), { event_name: 'client_updated', id: clientId, full_name: 'Mallory', email: 'mallory@evil.example' });
    const [event] = await queued(w);
    expect(event?.event).toMatchObject({ client: { id: clientId, full_name: 'Ada Client', email: 'ada@acme.example' } });
  });

  it('a body naming a record the connection cannot see dispatches nothing', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_viewed');
    await w.subscribe('contentsnare.field_approved');
    const request = await newRequest(w);
    await w.post(w.hookPath(), { event_name: 'request_viewed', id: 'req_999' });
    // A real field, but named with another request's page: the page is not that request's.
    const page = w.fake.webhooks.addPage(request.id, 'Details', [{ name: 'Website' }])!;
    const other = await api(w, 'POST', '/requests', {
      name: 'Other',
      client_email: 'bo@b.example',
      client_full_name: 'Bo',
      request_template_name: 'Onboarding',
      status: 'published',
    });
    await w.fake.webhooks.settled();
    const field = ((page.sections as any[])[0].fields as any[])[0];
    w.fake.webhooks.setFieldStatus(field.id, 'approved');
    await w.fake.webhooks.settled();
    const real = await queued(w);
    expect(real.map((e) => e.trigger)).toEqual(['contentsnare.field_approved']);
    await w.post(w.hookPath(), { event_name: 'field_approved', id: field.id, page_id: page.id, request: { id: other.id } });
    await w.post(w.hookPath(), { event_name: 'field_approved', id: 'fld_999', page_id: page.id, request: { id: request.id } });
    expect(await queued(w)).toEqual([]);
    expect(count(w, 'contentsnare_unconfirmed|event=field_approved,reason=unseen')).toBe(2);
    expect(count(w, 'contentsnare_unconfirmed|event=request_viewed,reason=unseen')).toBe(1);
  });

  it('redeliveries and a burst of copies fire once; a later real change fires again', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_completed');
    const request = await newRequest(w);
    await api(w, 'PUT', `/requests/${request.id}`, { status: 'completed' });
    await w.fake.webhooks.settled();
    const body = w.fake.webhooks.sent.find((s) => s.body.event_name === 'request_completed')!.body;
    await w.post(w.hookPath(), body);
    await Promise.all(Array.from({ length: 5 }, () => w.post(w.hookPath(), body)));
    const first = await queued(w);
    expect(first).toHaveLength(1);
    // A minute later, reopened and completed again (the reopening is not subscribed, so not seen): a new episode.
    w.t.clock.advance(60_000);
    await api(w, 'PUT', `/requests/${request.id}`, { status: 'published' });
    w.t.clock.advance(60_000);
    await api(w, 'PUT', `/requests/${request.id}`, { status: 'completed' });
    await w.fake.webhooks.settled();
    await w.post(w.hookPath(), body);
    const second = await queued(w);
    expect(second).toHaveLength(1);
    expect(second[0]?.id).not.toBe(first[0]?.id);
  });

  it('read-backs share the account rate limit with the tool steps: a delivery that finds the limit spent is accepted, waits on the queue, and is read back once the window has room; the service never answers 429', async () => {
    const w = await world();
    await w.subscribe('contentsnare.client_created');
    const tools = [createContentsnareTools()];
    // Fill the account's read window (50 per 10 s) through the tool step, in one instant of the test clock.
    const clock = w.t.clock;
    const frozen = clock.now();
    w.t.ctx.sleep = async () => undefined;
    const reads = await Promise.all(
      Array.from({ length: 50 }, () =>
        invokeTool(
          w.t.ctx,
          { toolId: 'contentsnare.api_call', connectionId: w.connection.id, input: { method: 'GET', endpoint: '/folders' } },
          tools,
        ),
      ),
    );
    expect(reads.every((r) => r.ok)).toBe(true);
    expect(clock.now()).toBe(frozen);
    const created = await api(w, 'POST', '/clients', { full_name: 'Ada Client', email: 'ada-limit@acme.example' });
    await w.fake.webhooks.settled();
    expect(w.answers.map((a) => a.status)).toEqual([202]);
    // The read-back cannot get the limit now: it goes back on the queue, and nothing is read.
    expect(await queued(w)).toEqual([]);
    expect(count(w, 'contentsnare_read_back_deferred')).toBe(1);
    expect(w.fake.log.filter((e) => e.path.startsWith('/partner_api/v1/clients/')).length).toBe(0);
    clock.advance(11_000);
    const events = await queued(w);
    expect(events.map((e) => e.trigger)).toEqual(['contentsnare.client_created']);
    expect(events[0]?.event).toMatchObject({ client: { id: created.id } });
    expect(w.fake.count(429)).toBe(0);
  });
});

describe('recovery of missed deliveries', () => {
  it('a delivery the service never made is found by the next poll round and announced once; what was delivered is not announced again', async () => {
    const w = await world();
    await w.subscribe('contentsnare.request_completed');
    await w.subscribe('contentsnare.request_published');
    w.t.clock.advance(1000);
    const delivered = await newRequest(w);
    // The next completion's delivery is lost on the way.
    const send = w.fake.webhooks.deliver;
    w.fake.webhooks.deliver = async (url, body) => (body.event_name === 'request_completed' ? 0 : send(url, body));
    w.t.clock.advance(1000);
    await api(w, 'PUT', `/requests/${delivered.id}`, { status: 'completed' });
    await w.fake.webhooks.settled();
    const before = await queued(w);
    expect(before.map((e) => e.trigger)).toEqual(['contentsnare.request_published']);

    await recoverMissedSnareDeliveries(w.t.ctx);
    const recovered = await queued(w);
    expect(recovered.map((e) => e.trigger)).toEqual(['contentsnare.request_completed']);
    expect(recovered[0]?.event).toMatchObject({ request: { id: delivered.id, status: 'completed' } });
    // Another round, and the lost delivery arriving late after all: nothing twice.
    await recoverMissedSnareDeliveries(w.t.ctx);
    await send(
      `http://127.0.0.1:9${w.hookPath()}`,
      w.fake.webhooks.requestPayload(w.fake.state.requests.get(delivered.id)!, 'request_completed'),
    );
    expect(await queued(w)).toEqual([]);
  });

  it('a request completed before the subscription was made is not announced by the check', async () => {
    const w = await world();
    const old = await api(w, 'POST', '/requests', {
      name: 'Old',
      client_email: 'o@o.example',
      client_full_name: 'O',
      request_template_name: 'Onboarding',
      status: 'published',
    });
    await api(w, 'PUT', `/requests/${old.id}`, { status: 'completed' });
    w.t.clock.advance(1000);
    await w.subscribe('contentsnare.request_completed');
    await recoverMissedSnareDeliveries(w.t.ctx);
    expect(await queued(w)).toEqual([]);
  });
});
