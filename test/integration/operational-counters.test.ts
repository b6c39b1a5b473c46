import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { writeStoredToken } from '../../shared/store/stored-token';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import type { TriggerEvent } from '../../shared/domain/model';
import { apiCall } from '../../shared/providers/github/api-call';
import { githubClientFactory } from '../../shared/providers/github/client-factory';
import { mapGitHubError } from '../../shared/providers/github/github-errors';
import { createGitHubClient, type GitHubClient } from '../../shared/providers/github/octokit';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import { consumerPass } from '../helpers/consumer-pass';
import { silentLogger } from '../../shared/observability/logger';
import { InMemoryMetrics } from '../../shared/observability/metrics';
import { invokeTool } from '../../shared/tools/invoke';
import { defineProvider, type ProviderTools, type ToolStep } from '../../shared/tools/tool-step';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { testContext, type TestContext } from '../helpers/test-context';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

// The operational counters beyond deliveries and dispatches (docs/operations.md, metrics): events dead-lettered,
// token refreshes and rate-limit waits, each counted where it happens and only then.

const deadLettered = (t: TestContext) => t.metrics.counts.get('events_dead_lettered') ?? 0;

describe('events dead-lettered', () => {
  let runtime: FakeAgentRuntime;
  const open: TestContext[] = [];
  beforeAll(async () => {
    runtime = await FakeAgentRuntime.start();
  });
  afterAll(() => runtime.close());
  afterEach(() => {
    for (const t of open.splice(0)) t.close();
    runtime.requests.length = 0;
    runtime.answers.length = 0;
  });

  async function setup() {
    const t = await testContext({ AGENT_RUNTIME_URL: runtime.url }, { maxReceives: maxReceiveCount });
    open.push(t);
    const q = t.queues.queue;
    const pass = async () => {
      await consumerPass(t.ctx, q);
      t.clock.advance(900_000);
    };
    return { t, q, pass };
  }

  const event = (n: number): TriggerEvent => ({
    id: `evt_dl_${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-dl-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { issue: { number: n } },
  });

  it('counts an event the runtime keeps refusing once, on the receive after which the queue dead-letters it', async () => {
    const { t, pass } = await setup();
    for (let i = 0; i < 10; i++) runtime.answers.push({ status: 500 });
    await enqueueEvents(t.ctx, [event(1)]);
    for (let i = 1; i < maxReceiveCount; i++) await pass();
    expect(deadLettered(t)).toBe(0);
    await pass();
    expect(deadLettered(t)).toBe(1);
    await pass();
    expect(await t.queues.deadLetters.list(10)).toHaveLength(1);
    expect(deadLettered(t)).toBe(1);
  });

  it('counts an unreadable message once, not on every receive', async () => {
    const { t, q, pass } = await setup();
    await q.sendBatch([{ id: 'poison', body: '{"not":"an event"' }]);
    for (let i = 0; i < maxReceiveCount + 2; i++) await pass();
    expect(await t.queues.deadLetters.list(10)).toHaveLength(1);
    expect(deadLettered(t)).toBe(1);
  });

  it('counts nothing for an event that is retried and then delivered, or only throttled', async () => {
    const { t, pass } = await setup();
    runtime.answers.push({ status: 500 }, { status: 429, headers: { 'retry-after': '1' } });
    await enqueueEvents(t.ctx, [event(2)]);
    for (let i = 0; i < maxReceiveCount + 2; i++) await pass();
    expect(runtime.events().map((e) => e.id)).toContain('evt_dl_2');
    expect(deadLettered(t)).toBe(0);
  });
});

describe('token refreshes', () => {
  let t: OAuthTestContext;
  beforeAll(async () => {
    t = await oauthTestContext();
  });
  afterAll(() => t.stop());
  const refreshes = () => t.metrics.counts.get('token_refreshes|provider=contentsnare') ?? 0;

  async function connection(expiresInMs: number) {
    const refresh = t.fake.issueRefreshToken();
    const expiresAt = t.clock.now() + expiresInMs;
    const c = await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'Agency', tokenExpiresAt: expiresAt });
    await writeStoredToken(t.ctx.secrets, c, { accessToken: `access-${refresh.slice(-8)}`, refreshToken: refresh, expiresAt });
    return c;
  }

  it('counts one refresh when concurrent callers share it, and none for a token still fresh', async () => {
    const before = refreshes();
    const fresh = await connection(60 * 60 * 1000);
    await t.ctx.tokens.accessToken(fresh);
    expect(refreshes()).toBe(before);
    const expired = await connection(-1000);
    await Promise.all(Array.from({ length: 5 }, () => t.ctx.tokens.accessToken(expired)));
    expect(refreshes()).toBe(before + 1);
    await t.ctx.tokens.accessToken(expired, { forceRefresh: true });
    expect(refreshes()).toBe(before + 2);
  });
});

describe('code host rate-limit waits', () => {
  let host: FakeServer;
  beforeAll(async () => {
    host = await startFakeHttp();
  });
  afterAll(() => host.close());
  beforeEach(() => {
    host.requests.length = 0;
  });
  const failingOnce = (first: { status: number; headers: Record<string, string>; body: unknown }) => {
    let calls = 0;
    host.setHandler(() => (calls++ === 0 ? first : { body: { ok: true } }));
  };
  const waits = (m: InMemoryMetrics) => m.counts.get('rate_limit_waits|provider=github') ?? 0;
  let n = 0;
  const client = (metrics: InMemoryMetrics) =>
    createGitHubClient({
      token: 'ghp_countersTestToken0000000000000000000',
      baseUrl: host.url,
      fetch: globalThis.fetch,
      logger: silentLogger,
      metrics,
      throttle: { id: `c${n++}`, msPerSecond: 10 },
    });

  it('Octokit: counts a primary-limit wait it retries after, not one it gives up on', async () => {
    const metrics = new InMemoryMetrics();
    failingOnce({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) },
      body: { message: 'API rate limit exceeded' },
    });
    await client(metrics).request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' });
    expect(waits(metrics)).toBe(1);
    failingOnce({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 600) },
      body: { message: 'API rate limit exceeded' },
    });
    await expect(client(metrics).request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' })).rejects.toThrow();
    expect(waits(metrics)).toBe(1);
  });

  // The factory waits on the context's sleep (recorded, instant here) and treats retry-after 0 as absent: these two wait 1 s each.
  describe('through the tool-step wiring (client factory, github.api_call)', () => {
    let t: ToolTestContext;
    let connectionId: string;
    const octokitGet: ToolStep<z.ZodType, z.ZodType, GitHubClient> = {
      ...apiCall,
      id: 'github.test_octokit_get',
      output: z.unknown(),
      run: async (i: { endpoint: string }, c: GitHubClient) => (await c.request(`GET ${i.endpoint}`)).data,
    } as ToolStep<z.ZodType, z.ZodType, GitHubClient>;
    const tools: ProviderTools[] = [
      defineProvider({
        provider: 'github',
        steps: [apiCall, octokitGet],
        client: githubClientFactory,
        mapError: (e, nowMs) => mapGitHubError(e, nowMs),
      }),
    ];
    beforeAll(async () => {
      t = await toolTestContext({ GITHUB_API_URL: host.url });
      connectionId = (await t.connect({}, 'ghp_countersToolToken00000000000000000000')).id;
    });

    it('Octokit secondary limit with retry-after: the wait is counted on the context metrics', async () => {
      const before = waits(t.metrics);
      failingOnce({ status: 403, headers: { 'retry-after': '1' }, body: { message: 'You have exceeded a secondary rate limit.' } });
      const result = await invokeTool(
        t.ctx,
        { toolId: 'github.test_octokit_get', connectionId, input: { method: 'GET', endpoint: '/x' } },
        tools,
      );
      expect(result).toMatchObject({ ok: true });
      expect(host.requests).toHaveLength(2);
      expect(waits(t.metrics)).toBe(before + 1);
      expect(t.sleeps.at(-1)).toBe(1000);
    });

    it('github.api_call: a rate-limit answer it waits out is counted', async () => {
      const before = waits(t.metrics);
      failingOnce({ status: 429, headers: { 'retry-after': '1' }, body: { message: 'slow down' } });
      const result = await invokeTool(t.ctx, { toolId: 'github.api_call', connectionId, input: { method: 'GET', endpoint: '/x' } }, tools);
      expect(result).toMatchObject({ ok: true });
      expect(waits(t.metrics)).toBe(before + 1);
      expect(t.sleeps.at(-1)).toBe(1000);
    });
  });
});
