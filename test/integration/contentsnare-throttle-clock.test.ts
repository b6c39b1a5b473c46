import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentSnareClient } from '../../shared/providers/contentsnare/client';
import { ContentSnareRateLimiter } from '../../shared/providers/contentsnare/rate-limiter';
import type { Connection } from '../../shared/domain/model';
import type { Store } from '../../shared/ports';
import { stopTestDynamo, testStore, TestClock } from '../helpers/dynamo';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';

/**
 * Time-dependent behaviour on a fake clock: `sleep` moves the clock instead of waiting, and
 * the fake service logs arrivals on the same clock, so "at least 7 s later" is exact and
 * the test takes milliseconds. The table is the embedded DynamoDB.
 */
const connection = (id: string): Connection => ({
  id,
  provider: 'contentsnare',
  accountLogin: `${id}@example.com`,
  authMethod: 'oauth',
  status: 'connected',
  repositories: [],
  createdAt: '2026-11-22T10:00:00Z',
  updatedAt: '2026-11-22T10:00:00Z',
});

let clock: TestClock;
let store: Store;
let fake: FakeContentSnare;

beforeEach(async () => {
  clock = new TestClock();
  store = (await testStore(clock)).store;
  fake = await startFakeContentSnare({ now: () => clock.now() });
});
afterEach(async () => {
  await fake.close();
});
afterAll(async () => {
  await stopTestDynamo();
});

/** One worker: its own limiter and client over the shared table. */
function worker(id: string, opts: { maxWaitMs?: number; maxThrottleRetries?: number } = {}) {
  const sleep = async (ms: number) => clock.advance(ms);
  const limiter = new ContentSnareRateLimiter({ store, clock, sleep, random: () => 0.5, maxWaitMs: opts.maxWaitMs ?? 30_000 });
  const client = new ContentSnareClient({
    apiUrl: fake.url,
    connection: connection(id),
    tokens: { accessToken: async () => `token-${id}` },
    fetch: globalThis.fetch,
    clock,
    limiter,
    sleep,
    maxThrottleRetries: opts.maxThrottleRetries,
  });
  return { limiter, client };
}

// POST /clients as the partner API takes it (full_name + email); each call a new e-mail, since the fake refuses a known one.
let seq = 0;
const createClientBody = () => ({ full_name: 'Ada', email: `ada${++seq}@example.com` });

describe('a 429 from the collection service', () => {
  it('with Retry-After: 7, the retry and the next call of every worker come >= 7 s later; another account does not wait', async () => {
    const a1 = worker('acct-a');
    fake.script.push({ status: 429, headers: { 'retry-after': '7' } });
    const res = await a1.client.request({ method: 'POST', endpoint: 'clients', body: createClientBody() });
    expect(res.status).toBe(200);
    const [first, retry] = fake.log;
    expect(first?.status).toBe(429);
    expect(retry?.status).toBe(200);
    expect((retry?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(7000);

    // Another worker of account A meets a 429 and gives up at once (no retries allowed):
    // the block it recorded in the table holds for every other worker of A, not for B.
    const a2 = worker('acct-a', { maxThrottleRetries: 0 });
    fake.script.push({ status: 429, headers: { 'retry-after': '7' } });
    const err = await a2.client.request({ method: 'GET', endpoint: 'clients' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'rate_limited', details: { retryAfter: 7 } });
    const blockedAt = fake.log.at(-1)?.at ?? 0;

    const b = worker('acct-b');
    await b.client.request({ method: 'GET', endpoint: 'clients' });
    expect(fake.log.at(-1)?.at).toBe(blockedAt); // account B went straight through

    await a1.client.request({ method: 'POST', endpoint: 'clients', body: createClientBody() });
    expect((fake.log.at(-1)?.at ?? 0) - blockedAt).toBeGreaterThanOrEqual(7000);
    expect(fake.log.at(-1)?.status).toBe(200);
  });

  it('with an HTTP-date Retry-After, waits until that date', async () => {
    const { client } = worker('acct-a');
    const until = new Date(clock.now() + 12_000).toUTCString();
    fake.script.push({ status: 429, headers: { 'retry-after': until } });
    await client.request({ method: 'GET', endpoint: 'requests' });
    expect(fake.log[1]?.at).toBeGreaterThanOrEqual(Date.parse(until));
  });

  it('without Retry-After, backs off exponentially (1 s, then 2 s)', async () => {
    const { client } = worker('acct-a');
    fake.script.push({ status: 429 }, { status: 429 });
    await client.request({ method: 'GET', endpoint: 'requests' });
    const [a, b, c] = fake.log.map((e) => e.at);
    expect((b ?? 0) - (a ?? 0)).toBeGreaterThanOrEqual(1000);
    expect((c ?? 0) - (b ?? 0)).toBeGreaterThanOrEqual(2000);
    expect(fake.log.map((e) => e.status)).toEqual([429, 429, 200]);
  });

  it('asking for a wait beyond RATE_LIMIT_MAX_WAIT_SECONDS answers rate_limited with retryAfter, without sending again', async () => {
    const { client } = worker('acct-a', { maxWaitMs: 30_000 });
    fake.script.push({ status: 429, headers: { 'retry-after': '60' } });
    const err = await client.request({ method: 'POST', endpoint: 'clients', body: createClientBody() }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'rate_limited' });
    const retryAfter = (err as { details: { retryAfter: number } }).details.retryAfter;
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(fake.log).toHaveLength(1);
  });
});

describe('the limiter on a fake clock', () => {
  it('makes the 21st write of a window wait for the first to leave it, then answers rate_limited past the bound', async () => {
    const { limiter } = worker('acct-a', { maxWaitMs: 5000 });
    const t0 = clock.now();
    for (let i = 0; i < 20; i++) await limiter.acquire('acct-a', 'write');
    expect(clock.now()).toBe(t0); // no wait for the first 20
    await limiter.acquire('acct-a', 'read'); // reads have their own bucket
    expect(clock.now()).toBe(t0);

    const patient = new ContentSnareRateLimiter({ store, clock, sleep: async (ms) => clock.advance(ms), maxWaitMs: 30_000 });
    await patient.acquire('acct-a', 'write');
    expect(clock.now()).toBeGreaterThanOrEqual(t0 + 10_000);

    // The window is full again (21 grants, 20 of them within the last 10 s): a 5 s bound is too short.
    for (let i = 0; i < 19; i++) await patient.acquire('acct-a', 'write');
    const err = await limiter.acquire('acct-a', 'write').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'rate_limited', details: { retryAfter: expect.any(Number) } });
    expect((err as { details: { retryAfter: number } }).details.retryAfter).toBeGreaterThan(5);
  });
});
