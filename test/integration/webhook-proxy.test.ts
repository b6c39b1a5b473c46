import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { createJsonLogger } from '../../shared/observability/logger';
import { maxRelayEventChars, relayedDelivery, runWebhookProxy, sseParser } from '../../local/webhook-proxy';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub, type FakeHook } from '../helpers/fake-github-server';
import { startFakeHttp } from '../helpers/fake-http';
import { startFakeSmee, type FakeSmee } from '../helpers/fake-smee';
import { startRuntime, until, type TestRuntime } from '../helpers/runtime-support';

describe('the SSE parser', () => {
  it('reads events split anywhere, multi-line data, comments and CRLF', () => {
    const parse = sseParser();
    expect(parse('event: ready\r\ndata: {}\r\n\r\n: keep-alive\n\nda')).toEqual([{ event: 'ready', data: '{}' }]);
    expect(parse('ta: a\ndata: b\n')).toEqual([]);
    expect(parse('\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('keeps a CRLF split between two chunks one line end, not an empty line that would end the event early', () => {
    const parse = sseParser();
    expect(parse('data: a\r')).toEqual([]);
    expect(parse('\ndata: b\r\n')).toEqual([]);
    expect(parse('\r\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('skips an event larger than a delivery can be, holding at most that much, and reads the next one', () => {
    const skipped: number[] = [];
    const parse = sseParser({ maxEventChars: 100, onOversized: (chars) => skipped.push(chars) });
    // One long data line in many chunks, with no line end for a while: never held past the bound.
    expect(parse('data: ')).toEqual([]);
    for (let i = 0; i < 50; i++) expect(parse('x'.repeat(10))).toEqual([]);
    expect(parse('\ndata: more of the same event\n\n')).toEqual([]);
    expect(parse('data: next\n\n')).toEqual([{ event: 'message', data: 'next' }]);
    // Many short lines that add up past the bound are one oversized event too.
    expect(parse(`${'data: 0123456789\n'.repeat(20)}\ndata: after\n\n`)).toEqual([{ event: 'message', data: 'after' }]);
    expect(skipped).toHaveLength(2);
    for (const chars of skipped) expect(chars).toBeGreaterThan(100);
  });

  it("skips an event past the intake's body limit plus framing, before parsing it, and passes one a relay can carry", () => {
    expect(maxRelayEventChars).toBeGreaterThan(lambdaMaxBodyBytes);
    expect(maxRelayEventChars).toBeLessThan(lambdaMaxBodyBytes * 1.1);
    const skipped: number[] = [];
    const parse = sseParser({ onOversized: (chars) => skipped.push(chars) });
    const mib = 'x'.repeat(1024 * 1024);
    // One MiB, the most smee.io takes: replayed.
    expect(parse(`data: {"body":"${mib}"}\n\n`)).toHaveLength(1);
    // Past the intake's limit: skipped while it streams in, never held whole.
    expect(parse('data: {"body":"')).toEqual([]);
    for (let i = 0; i < 7; i++) expect(parse(mib)).toEqual([]);
    expect(skipped).toHaveLength(1);
    expect(parse('"}\n\ndata: {"next":1}\n\n')).toEqual([{ event: 'message', data: '{"next":1}' }]);
  });

  it('takes the raw body from rawdata, and never replays a body field or a hop-by-hop header as a header', () => {
    const raw = `{"action":"opened","text":"${'y'.repeat(20_000)}"}`;
    const d = relayedDelivery(
      JSON.stringify({
        host: 'smee.io',
        expect: '100-continue',
        connection: 'close',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        'content-length': '5',
        upgrade: 'h2c',
        te: 'trailers',
        'proxy-authorization': 'Basic eA==',
        'x-forwarded-for': '203.0.113.9',
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/044aadd',
        'x-github-event': 'issues',
        'x-github-delivery': 'd-1',
        'x-hub-signature-256': 'sha256=00',
        'x-evil': 'a\r\nb',
        body: JSON.parse(raw),
        rawdata: raw,
        query: { endpoint: 'ep_abc' },
        timestamp: 1,
      }),
    );
    expect(d).toEqual({
      path: '/webhooks/github/ep_abc',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/044aadd',
        'x-github-event': 'issues',
        'x-github-delivery': 'd-1',
        'x-hub-signature-256': 'sha256=00',
      },
      body: raw,
    });
    // A form body cannot be rebuilt from the relay's parsed copy of it.
    expect(
      relayedDelivery(
        JSON.stringify({ 'content-type': 'application/x-www-form-urlencoded', body: { payload: '{}' }, query: { endpoint: 'e' } }),
      ),
    ).toMatchObject({ skip: expect.stringContaining('form') });
  });

  it('turns a smee message into the original request for our intake, or says why not', () => {
    const d = relayedDelivery(
      JSON.stringify({
        host: 'smee.io',
        'x-github-event': 'issues',
        'content-length': '9',
        body: { a: 1 },
        query: { endpoint: 'ep_abc' },
        timestamp: 1,
      }),
    );
    expect(d).toEqual({
      path: '/webhooks/github/ep_abc',
      headers: { 'x-github-event': 'issues', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(relayedDelivery(JSON.stringify({ body: {}, query: {} }))).toMatchObject({ skip: expect.stringContaining('?endpoint=') });
    expect(relayedDelivery(JSON.stringify({ body: {}, query: { endpoint: '../../admin' } }))).toMatchObject({ skip: expect.any(String) });
  });
});

describe('WEBHOOK_PROXY_URL: real deliveries reach a laptop through a relay', () => {
  const open: Array<{ close(): Promise<void> } | TestRuntime> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await ('dispose' in o ? o.dispose() : o.close());
  });

  it('registers the hook at the relay and replays each delivery, signature checked, to the agent runtime', async () => {
    const github = await FakeGitHub.start();
    const smee: FakeSmee = await startFakeSmee();
    const agent = await FakeAgentRuntime.start();
    open.push(github, smee, agent);
    github.addUser('ghp_proxyToken', 'octocat');
    const rt = await startRuntime({ GITHUB_API_URL: github.url, WEBHOOK_PROXY_URL: smee.url, AGENT_RUNTIME_URL: agent.url });
    open.push(rt);
    await until('the runtime listening to the relay', () => smee.listeners() === 1);
    const key = { authorization: 'Bearer reliability-platform-key-0123456789abcdef', 'content-type': 'application/json' };
    const conn = (await (
      await fetch(`${rt.url}/connections`, {
        method: 'POST',
        headers: key,
        body: JSON.stringify({ provider: 'github', token: 'ghp_proxyToken' }),
      })
    ).json()) as { id: string };
    const subRes = await fetch(`${rt.url}/subscriptions`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ connectionId: conn.id, trigger: 'github.new_issue', agentId: 'a', repository: 'Codertocat/Hello-World' }),
    });
    const sub = (await subRes.json()) as { id: string; endpointId: string };
    expect(subRes.status, JSON.stringify(sub)).toBe(201);
    const subscriptionId = sub.id;
    const hook = github.hooksOf('repos/Codertocat/Hello-World')[0]!;
    expect(hook.config.url.startsWith(`${smee.url}?endpoint=ep_`)).toBe(true);

    const body = JSON.stringify({
      action: 'opened',
      issue: { number: 1, title: 'Through the relay', user: { login: 'someone' }, labels: [] },
      repository: { full_name: 'Codertocat/Hello-World', name: 'Hello-World', owner: { login: 'Codertocat' } },
      sender: { login: 'someone' },
    });
    await github.deliver(hook, 'issues', body, 'relay-delivery-1');
    await until('the event at the agent runtime', () => agent.events().length === 1);
    expect(agent.events()[0]).toMatchObject({ trigger: 'github.new_issue', subscriptionId, deliveryId: 'relay-delivery-1' });

    // A forged delivery through the relay is refused by the intake: the signature stays checked.
    await github.deliver(
      { ...hook, config: { ...hook.config, secret: 'not-the-secret' } },
      'issues',
      body.replace('Through the relay', 'Forged'),
      'relay-forged',
    );

    // The relay drops the stream: the runtime reconnects and keeps replaying (in order: the forged one went first).
    smee.dropStreams();
    await until('the runtime back on the relay', () => smee.listeners() === 1);
    await github.deliver(hook, 'issues', body.replace('Through the relay', 'Again'), 'relay-delivery-2');
    await until('the second event', () => agent.events().length === 2);
    expect(agent.events().map((e) => e.deliveryId)).toEqual(['relay-delivery-1', 'relay-delivery-2']);
  });
});

const key = { authorization: 'Bearer reliability-platform-key-0123456789abcdef', 'content-type': 'application/json' };

function issueBody(title: string, padding = 0): string {
  return JSON.stringify({
    action: 'opened',
    issue: { number: 1, title, body: 'p'.repeat(padding), user: { login: 'someone' }, labels: [] },
    repository: { full_name: 'Codertocat/Hello-World', name: 'Hello-World', owner: { login: 'Codertocat' } },
    sender: { login: 'someone' },
  });
}

/** A connection and a `github.new_issue` subscription made over the platform API: the hook points at the relay. */
async function subscribe(rt: TestRuntime, github: FakeGitHub): Promise<FakeHook> {
  github.addUser('ghp_proxyToken', 'octocat');
  const conn = (await (
    await fetch(`${rt.url}/connections`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ provider: 'github', token: 'ghp_proxyToken' }),
    })
  ).json()) as { id: string };
  const sub = await fetch(`${rt.url}/subscriptions`, {
    method: 'POST',
    headers: key,
    body: JSON.stringify({ connectionId: conn.id, trigger: 'github.new_issue', agentId: 'a', repository: 'Codertocat/Hello-World' }),
  });
  expect(sub.status, await sub.clone().text()).toBe(201);
  const hook = github.hooksOf('repos/Codertocat/Hello-World')[0];
  if (!hook) throw new Error('no hook made');
  return hook;
}

describe('WEBHOOK_PROXY_URL: what the relay carries, and what it loses', () => {
  const open: Array<{ close(): Promise<void> } | TestRuntime> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await ('dispose' in o ? o.dispose() : o.close());
  });

  async function world(
    smeeOptions: Parameters<typeof startFakeSmee>[0] = {},
    env: Record<string, string> = {},
    proxyUrl?: (u: string) => string,
  ) {
    const github = await FakeGitHub.start();
    const smee = await startFakeSmee(smeeOptions);
    const agent = await FakeAgentRuntime.start();
    open.push(github, smee, agent);
    const rt = await startRuntime({
      GITHUB_API_URL: github.url,
      WEBHOOK_PROXY_URL: proxyUrl ? proxyUrl(smee.url) : smee.url,
      AGENT_RUNTIME_URL: agent.url,
      ...env,
    });
    open.push(rt);
    await until('the runtime listening to the relay', () => smee.listeners() === 1);
    return { github, smee, agent, rt, hook: await subscribe(rt, github) };
  }

  it('replays a 20 KB delivery the relay carried with its raw body, and one whose relayed headers include Expect', async () => {
    const { github, smee, agent, rt, hook } = await world({ rawdata: true }, {}, (u) => `${u}/`);
    // A trailing slash in WEBHOOK_PROXY_URL: the hook still points at the channel itself.
    expect(hook.config.url).toMatch(/\/channel-abc123\?endpoint=ep_/);
    await github.deliver(hook, 'issues', issueBody('Big', 20_000), 'relay-big');
    await until('the big event', () => agent.events().length === 1);
    const body = issueBody('Expecting');
    const secret = hook.config.secret ?? '';
    smee.emit({
      host: 'smee.io',
      expect: '100-continue',
      connection: 'keep-alive',
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-github-event': 'issues',
      'x-github-delivery': 'relay-expect',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      body: JSON.parse(body),
      query: { endpoint: new URL(hook.config.url).searchParams.get('endpoint') },
      timestamp: Date.now(),
    });
    await until('the second event', () => agent.events().length === 2);
    expect(agent.events().map((e) => e.deliveryId)).toEqual(['relay-big', 'relay-expect']);
    await until('both replays logged', () => rt.lines.filter((l) => l.includes('delivery replayed')).length === 2);
    const replayed = rt.lines.filter((l) => l.includes('delivery replayed'));
    expect(replayed.map((l) => JSON.parse(l).deliveryId)).toEqual(['relay-big', 'relay-expect']);
  });

  it('reconnects within seconds once the relay answers again, says how long it was away, and the sweep has what was relayed meanwhile delivered again', async () => {
    const { github, smee, agent, rt, hook } = await world({}, { SWEEP_INTERVAL_SECONDS: '1' });
    // The relay is out of reach for the reader for a while (its backoff grows meanwhile)...
    smee.refuseStreams = true;
    smee.dropStreams();
    await until('several refused reconnects', () => smee.streamRequests() >= 4, 20_000);
    // ...while the code host delivers: the relay answers 200, with nobody listening.
    const res = await github.deliver(hook, 'issues', issueBody('While away'), 'relay-lost');
    expect(res.status).toBe(200);
    // Delivered two minutes ago, as far as the code host's list says: past the relay's grace.
    const listed = github.deliveries.get(hook.id)?.find((d) => d.guid === 'relay-lost');
    if (listed) listed.delivered_at = new Date(Date.now() - 120_000).toISOString();
    smee.refuseStreams = false;
    const back = Date.now();
    await until('the reader back on the relay', () => smee.listeners() === 1, 10_000);
    expect(Date.now() - back).toBeLessThan(6_000);
    const reconnectLine = () =>
      rt.lines.map((l) => JSON.parse(l)).find((l) => l.message === 'webhook proxy connected' && l.awayMs !== undefined);
    await until('the line on reconnecting', () => reconnectLine() !== undefined);
    expect(reconnectLine()?.awayMs).toBeGreaterThan(1000);
    await until('the lost delivery at the agent runtime', () => agent.events().some((e) => e.deliveryId === 'relay-lost'), 20_000);
    expect(github.redeliveries).toHaveLength(1);
    expect(agent.events().filter((e) => e.deliveryId === 'relay-lost')).toHaveLength(1);
  }, 60_000);
});

describe('the relay reader on its own', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });

  it('follows no redirect from the relay', async () => {
    const metadata = await startFakeHttp(() => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'data: {}\n\n' }));
    const relay = await startFakeHttp(() => ({ status: 302, headers: { location: `${metadata.url}/latest/meta-data/` } }));
    open.push(metadata, relay);
    const lines: string[] = [];
    const stop = new AbortController();
    const running = runWebhookProxy({
      source: `${relay.url}/channel`,
      target: 'http://127.0.0.1:9',
      logger: createJsonLogger({ write: (l) => lines.push(l) }),
      signal: stop.signal,
      retryMs: 20,
    });
    await until('a few attempts', () => relay.requests.length >= 3);
    stop.abort();
    await running;
    expect(metadata.requests).toHaveLength(0);
    expect(lines.some((l) => l.includes('redirect'))).toBe(true);
  });

  it('writes a bounded number of log lines for a stream of unsigned or unroutable events, then one summary per window', async () => {
    const smee = await startFakeSmee();
    const intake = await startFakeHttp(() => ({ status: 401, body: { error: { code: 'invalid_signature' } } }));
    open.push(smee, intake);
    const lines: string[] = [];
    const stop = new AbortController();
    let replayed = 0;
    const running = runWebhookProxy({
      source: smee.url,
      target: intake.url,
      logger: createJsonLogger({ write: (l) => lines.push(l) }),
      signal: stop.signal,
      quietWindowMs: 60_000,
      onReplay: () => replayed++,
    });
    await until('connected', () => smee.listeners() === 1);
    // Each unroutable event before a refused one: the events are worked in order, so the last refused one's
    // replay being counted means every event of the stream has been.
    for (let i = 0; i < 200; i++) {
      smee.emit({ body: { i }, query: {}, timestamp: 1 });
      smee.emit({ 'x-github-delivery': `junk-${i}`, body: { i }, query: { endpoint: 'ep_x' }, timestamp: 1 });
    }
    await until('every event worked', () => replayed === 200);
    stop.abort();
    await running;
    // The window is longer than the test: five lines in full, then one summary (written on stopping at the latest).
    const about = lines.map((l) => JSON.parse(l)).filter((l) => l.message !== 'webhook proxy connected');
    expect(about).toHaveLength(6);
    expect(about.slice(0, 5).every((l) => l.deliveryId !== undefined || l.reason !== undefined)).toBe(true);
    expect(about[5]).toMatchObject({ message: expect.stringContaining('summary'), suppressed: 395 });
  });
});
