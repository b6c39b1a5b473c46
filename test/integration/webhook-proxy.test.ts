import { afterEach, describe, expect, it } from 'vitest';
import { relayedDelivery, sseParser } from '../../local/webhook-proxy';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub } from '../helpers/fake-github-server';
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
