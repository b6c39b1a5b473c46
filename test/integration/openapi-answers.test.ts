import { replayBounds } from '../../shared/events/replay-bounds';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../shared/http/types';
import { FakeGitHub } from '../helpers/fake-github-server';
import { defaultAnswers } from '../helpers/github-step-samples';
import { checkAgainstOpenApi } from '../helpers/openapi-check';
import { browseToCallback, oauthConnect } from '../helpers/oauth-connect';
import { oauthTestContext } from '../helpers/oauth-test-context';
import { answerChecker, type SeenAnswer } from '../helpers/openapi-answers';
import { platformKey, repository, startRuntime, type TestRuntime } from '../helpers/runtime-support';
import { examplePayload, sign } from '../helpers/signed-delivery';
import { stopTestDynamo } from '../helpers/dynamo';

/**
 * The committed OpenAPI document (docs/openapi.json, what `GET /openapi.json` serves) holds
 * for the real answers of the local runtime: every route's main answers and errors are
 * called for over HTTP, and each answer's status and body are checked against the document
 * with a JSON Schema validator. Every operation of the document is exercised at least once.
 */
const document = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
const checker = answerChecker(document);
const problems: string[] = [];
const token = 'github_pat_11OPENAPI0abcdefghijklmnopqrstuvwxyz0123456789';

let github: FakeGitHub;
let rt: TestRuntime;

/** One HTTP call to the runtime, its answer checked against the document under `pattern`. */
async function call(
  method: string,
  path: string,
  pattern: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string>; key?: string | null } = {},
): Promise<SeenAnswer & { json: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? platformKey}`;
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers,
    redirect: 'manual',
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await res.text();
  const answer = { status: res.status, headers: Object.fromEntries(res.headers), body: text };
  problems.push(...checker.check(method, pattern, answer));
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { ...answer, json };
}

function record(method: string, pattern: string, answer: HttpResponse): HttpResponse {
  problems.push(...checker.check(method, pattern, { status: answer.status, headers: answer.headers, body: answer.body }));
  return answer;
}

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  // The tool steps' operations, answered from the code host's REST description as the sandbox does.
  const answers = defaultAnswers(() => github.url);
  github.otherwise = (req) => {
    const { match } = checkAgainstOpenApi(req);
    const answer = match ? answers[match.operationId] : undefined;
    return answer && match ? answer(match) : { status: 404, body: { message: 'Not Found' } };
  };
  rt = await startRuntime(
    { GITHUB_API_URL: github.url, GITHUB_CLIENT_ID: 'Iv1.openapi', GITHUB_CLIENT_SECRET: 'openapi-client-secret-0123456789' },
    false,
  );
});

afterAll(async () => {
  await rt?.dispose();
  await github?.close();
  await stopTestDynamo();
});

describe('the OpenAPI document holds for the real answers of the local runtime', () => {
  it('answers the open routes: health, the document itself, an unknown path', async () => {
    expect((await call('GET', '/healthz', '/healthz', { key: null })).status).toBe(200);
    const served = await call('GET', '/openapi.json', '/openapi.json', { key: null });
    expect(served.status).toBe(200);
    expect(served.json).toEqual(document);
    expect((await fetch(`${rt.url}/no/such/route`)).status).toBe(404);
  });

  it('answers connections, subscriptions, keys and the catalog as documented, errors included', async () => {
    expect((await call('GET', '/triggers', '/triggers', { key: null })).status).toBe(401);
    expect((await call('GET', '/triggers', '/triggers')).status).toBe(200);

    expect((await call('POST', '/connections', '/connections', { body: { provider: 'github' } })).status).toBe(400);
    expect((await call('POST', '/connections', '/connections', { raw: '{not json' })).status).toBe(400);
    const made = await call('POST', '/connections', '/connections', { body: { provider: 'github', token, label: 'work' } });
    expect(made.status).toBe(201);
    const id = made.json.id as string;
    expect((await call('GET', '/connections', '/connections')).status).toBe(200);
    expect((await call('GET', `/connections/${id}`, '/connections/{id}')).status).toBe(200);
    expect((await call('GET', '/connections/conn_none', '/connections/{id}')).status).toBe(404);
    expect((await call('PATCH', `/connections/${id}`, '/connections/{id}', { body: { repositories: ['nope'] } })).status).toBe(400);
    expect((await call('PATCH', `/connections/${id}`, '/connections/{id}', { body: { label: 'renamed' } })).status).toBe(200);

    const subscription = { connectionId: id, trigger: 'github.new_issue', agentId: 'agent-1', repository };
    expect((await call('POST', '/subscriptions', '/subscriptions', { body: { ...subscription, trigger: 'github.new_isue' } })).status).toBe(
      400,
    );
    expect((await call('POST', '/subscriptions', '/subscriptions', { body: { ...subscription, connectionId: 'conn_none' } })).status).toBe(
      404,
    );
    // A repository the code host does not hold (or show to the token): its 404, as documented.
    github.hookOwnerExists = (owner) => owner !== 'repos/Codertocat/Not-There';
    const missing = await call('POST', '/subscriptions', '/subscriptions', {
      body: { ...subscription, repository: 'Codertocat/Not-There' },
    });
    expect([missing.status, missing.json?.error?.code]).toEqual([404, 'not_found']);
    const sub = await call('POST', '/subscriptions', '/subscriptions', { body: subscription });
    expect(sub.status).toBe(201);
    expect((await call('POST', '/subscriptions', '/subscriptions', { body: subscription })).status).toBe(200);
    expect((await call('GET', `/subscriptions?connectionId=${id}`, '/subscriptions')).status).toBe(200);
    expect((await call('GET', `/subscriptions?connectionId=${'x'.repeat(200)}`, '/subscriptions')).status).toBe(400);
    expect((await call('GET', `/subscriptions/${sub.json.id}`, '/subscriptions/{id}')).status).toBe(200);
    expect((await call('GET', '/subscriptions/sub_none', '/subscriptions/{id}')).status).toBe(404);

    // The code host's delivery to the hook the subscription made: accepted, then a duplicate; refusals.
    const hook = github.hooksOf(`repos/${repository}`)[0];
    if (!hook) throw new Error('no hook was made');
    const intake = '/webhooks/github/{endpointId}';
    const payload = JSON.stringify(examplePayload('issues', 'opened'));
    const guid = randomUUID();
    for (const expected of [202, 200]) {
      const res = await github.deliver(hook, 'issues', payload, guid);
      const body = await res.text();
      problems.push(...checker.check('POST', intake, { status: res.status, headers: Object.fromEntries(res.headers), body }));
      expect(res.status).toBe(expected);
    }
    const endpointPath = `/webhooks/github/${sub.json.endpointId}`;
    const deliveryHeaders = { 'x-github-event': 'issues', 'x-github-delivery': randomUUID() };
    expect((await call('POST', endpointPath, intake, { raw: payload, key: null })).status).toBe(400);
    const wrong = { ...deliveryHeaders, 'x-hub-signature-256': sign('not-the-secret', payload) };
    expect((await call('POST', endpointPath, intake, { raw: payload, key: null, headers: wrong })).status).toBe(401);
    const unknown = { ...deliveryHeaders, 'x-hub-signature-256': sign('x', payload) };
    expect((await call('POST', '/webhooks/github/ep_none', intake, { raw: payload, key: null, headers: unknown })).status).toBe(404);

    // The event the accepted delivery queued, in the history: listed, read, replayed; refusals.
    const events = await call('GET', `/events?connectionId=${id}`, '/events');
    expect(events.status).toBe(200);
    const eventId: string = events.json.events[0]?.id;
    expect(eventId).toMatch(/^evt_/);
    expect((await call('GET', '/events?status=lost', '/events')).status).toBe(400);
    expect((await call('GET', `/events/${eventId}`, '/events/{id}')).status).toBe(200);
    expect((await call('GET', '/events/evt_none', '/events/{id}')).status).toBe(404);
    for (let i = 0; i < replayBounds.perEvent.max; i++) {
      expect((await call('POST', `/events/${eventId}/replay`, '/events/{id}/replay', { body: {} })).status).toBe(202);
    }
    // Past the bound of replays of one event: 429, as the document says.
    expect((await call('POST', `/events/${eventId}/replay`, '/events/{id}/replay', { body: {} })).status).toBe(429);
    expect((await call('POST', '/events/evt_none/replay', '/events/{id}/replay', { body: {} })).status).toBe(404);

    // The GitHub App's webhook on a runtime with no App configured: nothing to route to.
    const app = { ...deliveryHeaders, 'x-hub-signature-256': sign('x', payload) };
    expect((await call('POST', '/webhooks/github/app', '/webhooks/github/app', { raw: payload, key: null, headers: app })).status).toBe(
      404,
    );
    // The collection service's webhook: a URL token no connection holds is not found.
    const snare = '/webhooks/contentsnare/{connectionId}/{token}';
    const snarePath = `/webhooks/contentsnare/conn_${'0'.repeat(32)}/${'t'.repeat(43)}`;
    expect((await call('POST', snarePath, snare, { body: { event: 'request_completed' }, key: null })).status).toBe(404);

    const key = await call('POST', '/keys', '/keys', { body: { label: 'agent', connections: [id] } });
    expect(key.status).toBe(201);
    expect((await call('POST', '/keys', '/keys', { body: { label: 'agent', connections: ['conn_none'] } })).status).toBe(400);
    expect((await call('GET', '/keys', '/keys')).status).toBe(200);
    expect((await call('GET', '/connections', '/connections', { key: key.json.key })).status).toBe(403);
    expect((await call('GET', '/subscriptions', '/subscriptions', { key: key.json.key })).status).toBe(200);
    expect((await call('DELETE', `/keys/${key.json.id}`, '/keys/{id}')).status).toBe(200);
    expect((await call('DELETE', `/keys/${key.json.id}`, '/keys/{id}')).status).toBe(404);

    expect((await call('DELETE', `/subscriptions/${sub.json.id}`, '/subscriptions/{id}')).status).toBe(200);
    expect((await call('DELETE', `/subscriptions/${sub.json.id}`, '/subscriptions/{id}')).status).toBe(404);
    expect((await call('DELETE', `/connections/${id}`, '/connections/{id}')).status).toBe(200);
    expect((await call('DELETE', `/connections/${id}`, '/connections/{id}')).status).toBe(404);
  });

  it('answers tool steps and MCP as documented: results, ToolResult failures, protocol refusals', async () => {
    const made = await call('POST', '/connections', '/connections', { body: { provider: 'github', token } });
    const id = made.json.id as string;
    const invoke = '/tools/{toolId}/invoke';
    expect((await call('GET', '/tools', '/tools')).status).toBe(200);
    const input = { owner: 'Codertocat', repo: 'Hello-World', title: 'From the document test' };
    expect((await call('POST', '/tools/github.create_issue/invoke', invoke, { body: { connectionId: id, input } })).status).toBe(200);
    expect((await call('POST', '/tools/github.create_issue/invoke', invoke, { body: { connectionId: id, input: {} } })).status).toBe(400);
    expect((await call('POST', '/tools/github.no_such_step/invoke', invoke, { body: { connectionId: id, input } })).status).toBe(404);
    expect((await call('POST', '/tools/github.create_issue/invoke', invoke, { body: { connectionId: 'conn_none', input } })).status).toBe(
      404,
    );
    expect((await call('POST', '/tools/github.create_issue/invoke', invoke, { key: 'wrong' })).status).toBe(401);

    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'document-test', version: '1' } },
    };
    const accept = { accept: 'application/json, text/event-stream' };
    expect((await call('POST', '/mcp', '/mcp', { body: initialize, headers: accept })).status).toBe(200);
    expect((await call('POST', '/mcp', '/mcp', { body: initialize, headers: { accept: 'text/html' } })).status).toBe(406);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await call('POST', `/mcp/${id}`, '/mcp/{connectionId}', { body: list, headers: accept })).status).toBe(200);
    expect((await call('POST', '/mcp/conn_none', '/mcp/{connectionId}', { body: list, headers: accept })).status).toBe(404);
    expect((await call('POST', '/mcp/x/actions', '/mcp/x/{toolset}', { body: list, headers: accept })).status).toBe(200);
    expect((await call('POST', '/mcp/x/nope', '/mcp/x/{toolset}', { body: list, headers: accept })).status).toBe(400);
    expect((await call('POST', `/mcp/${id}/x/actions`, '/mcp/{connectionId}/x/{toolset}', { body: list, headers: accept })).status).toBe(
      200,
    );
    expect((await call('POST', '/mcp', '/mcp', { body: list, headers: accept, key: null })).status).toBe(401);
    expect((await call('POST', '/mcp', '/mcp', { body: [list], headers: accept })).status).toBe(400);
    expect((await call('POST', '/mcp', '/mcp', { body: list, headers: { ...accept, origin: 'https://evil.example.com' } })).status).toBe(
      403,
    );
    for (const method of ['GET', 'DELETE']) {
      expect((await call(method, '/mcp', '/mcp', { headers: accept })).status).toBe(405);
      expect((await call(method, `/mcp/${id}`, '/mcp/{connectionId}', { headers: accept })).status).toBe(405);
    }
  });

  it('answers the OAuth steps as documented: authorize, the start redirect, refusals', async () => {
    const authorized = await call('POST', '/oauth/github/authorize', '/oauth/{provider}/authorize', { body: {} });
    expect(authorized.status).toBe(200);
    expect((await call('POST', '/oauth/gitlab/authorize', '/oauth/{provider}/authorize', { body: {} })).status).toBe(404);
    expect((await call('POST', '/oauth/contentsnare/authorize', '/oauth/{provider}/authorize', { body: {} })).status).toBe(501);
    const start = new URL(authorized.json.authorizeUrl);
    expect((await call('GET', `${start.pathname}${start.search}`, '/oauth/{provider}/start', { key: null })).status).toBe(302);
    expect((await call('GET', '/oauth/github/start', '/oauth/{provider}/start', { key: null })).status).toBe(400);
    const page = { accept: 'text/html' };
    expect((await call('GET', '/oauth/github/start?state=nope', '/oauth/{provider}/start', { key: null, headers: page })).status).toBe(400);
    expect((await call('GET', '/oauth/github/callback?state=nope&code=x', '/oauth/{provider}/callback', { key: null })).status).toBe(400);
    // The GitHub App flow on a runtime with no App configured: refused, naming the settings; unknown states.
    const app = await call('POST', '/oauth/github-app/authorize', '/oauth/github-app/authorize', { body: {} });
    expect(app.status).toBe(501);
    expect(app.json.error.message).toContain('GITHUB_APP_ID');
    expect((await call('POST', '/oauth/github-app/authorize', '/oauth/github-app/authorize', { body: { mode: 'later' } })).status).toBe(
      501,
    );
    expect((await call('GET', '/oauth/github-app/start?state=nope', '/oauth/github-app/start', { key: null })).status).toBe(400);
    const appCallback = '/oauth/github-app/callback?state=nope&code=x&installation_id=1&setup_action=install';
    expect((await call('GET', appCallback, '/oauth/github-app/callback', { key: null })).status).toBe(400);
    // The App made in one step: the manifest's URL, its page (once), and a return with a state never issued.
    expect((await call('POST', '/github-app/manifest', '/github-app/manifest', { body: { organization: 'not an org!' } })).status).toBe(
      400,
    );
    const manifest = await call('POST', '/github-app/manifest', '/github-app/manifest', { body: { name: 'OpenAPI check' } });
    expect(manifest.status).toBe(200);
    const startPath = new URL(manifest.json.url as string).pathname + new URL(manifest.json.url as string).search;
    expect((await call('GET', startPath, '/github-app/manifest/start', { key: null, headers: page })).status).toBe(200);
    expect((await call('GET', startPath, '/github-app/manifest/start', { key: null })).status).toBe(400);
    expect(
      (await call('GET', '/github-app/manifest/callback?state=nope&code=x', '/github-app/manifest/callback', { key: null })).status,
    ).toBe(400);
  });

  it('answers the connect page as documented: the session, the page, its form, refusals', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    expect((await call('POST', '/connect/sessions', '/connect/sessions', { body: { endUserId: 'a/b' } })).status).toBe(400);
    const made = await call('POST', '/connect/sessions', '/connect/sessions', { body: { endUserId: 'user-1', providers: ['github'] } });
    expect(made.status).toBe(201);
    const path = new URL(made.json.url).pathname;
    const page = await call('GET', path, '/connect/{token}', { key: null, headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect((await call('GET', '/connect/unknown-token', '/connect/{token}', { key: null })).status).toBe(404);
    const csrf = /name="csrf" value="([^"]+)"/.exec(String(page.body))?.[1] ?? '';
    const forged = new URLSearchParams({ csrf: 'forged', choice: 'github' }).toString();
    expect((await call('POST', path, '/connect/{token}', { key: null, headers: form, raw: forged })).status).toBe(403);
    const chosen = new URLSearchParams({ csrf, choice: 'github' }).toString();
    expect((await call('POST', path, '/connect/{token}', { key: null, headers: form, raw: chosen })).status).toBe(303);
  });

  it("answers the OAuth callback's outcomes as documented: a redirect to returnTo, a page, JSON", async () => {
    // The whole browser round trip needs the provider's consent: the fake OAuth provider, in process.
    const t = await oauthTestContext();
    try {
      const callback = '/oauth/{provider}/callback';
      const redirected = await oauthConnect(t, 'github');
      record('GET', callback, redirected.answer);
      expect(redirected.answer.status).toBe(302);
      const json = await t.callback(await browseToCallback(t, 'github', {}), { accept: 'application/json' });
      expect(record('GET', callback, json).status).toBe(200);
      const html = await t.callback(await browseToCallback(t, 'github', {}), { accept: 'text/html' });
      expect(record('GET', callback, html).status).toBe(200);
      t.fake.behaviour.deny = true;
      const denied = await t.callback(await browseToCallback(t, 'github', {}), { accept: 'application/json' });
      expect(record('GET', callback, denied).status).toBe(400);
    } finally {
      t.close();
    }
  });

  it('every answer above was as documented, and every documented operation was exercised', () => {
    expect(problems).toEqual([]);
    expect(checker.unexercised()).toEqual([]);
  });
});
