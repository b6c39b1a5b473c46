import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Connection } from '../../shared/domain/model';
import type { SnareClientContext } from '../../shared/providers/contentsnare/connection-client';
import type { ClientContext } from '../../shared/tools/tool-step';

const built = vi.hoisted(() => ({ limiters: 0 }));

vi.mock('../../shared/providers/contentsnare/rate-limiter', async (original) => {
  const actual = await original<typeof import('../../shared/providers/contentsnare/rate-limiter')>();
  class CountedLimiter extends actual.ContentSnareRateLimiter {
    constructor(...args: ConstructorParameters<typeof actual.ContentSnareRateLimiter>) {
      super(...args);
      built.limiters++;
    }
  }
  return { ...actual, ContentSnareRateLimiter: CountedLimiter };
});

// Workers are reused across files (vitest.config.ts): the files after this one get the real limiter.
afterAll(() => vi.doUnmock('../../shared/providers/contentsnare/rate-limiter'));

const { contentSnareClientFactory } = await import('../../shared/providers/contentsnare/client-factory');
const { snareClientFor } = await import('../../shared/providers/contentsnare/connection-client');

const connection = { id: 'conn_1', provider: 'contentsnare' } as Connection;

function context(): SnareClientContext & ClientContext {
  return {
    connection,
    store: {} as SnareClientContext['store'],
    clock: { now: () => 0 },
    config: { rateLimitMaxWaitSeconds: 30, contentsnare: { apiUrl: 'https://api.example.test' } } as SnareClientContext['config'],
    metrics: { count: () => undefined, gauge: () => undefined } as unknown as SnareClientContext['metrics'],
    sleep: async () => undefined,
    tokens: {} as SnareClientContext['tokens'],
    fetch: async () => new Response(null),
    logger: {} as SnareClientContext['logger'],
  };
}

describe("the collection service's client has one builder and one cache of rate limiters", () => {
  it("the tool steps' clients and the product's own calls of one store share one limiter", async () => {
    const ctx = context();
    const before = built.limiters;
    const tools = contentSnareClientFactory();
    await tools(connection, ctx);
    await contentSnareClientFactory()(connection, ctx);
    snareClientFor(ctx, connection);
    expect(built.limiters - before).toBe(1);
  });

  it('a shorter wait bound, another store or a factory with its own knobs gets a limiter of its own', async () => {
    const ctx = context();
    const before = built.limiters;
    snareClientFor(ctx, connection);
    snareClientFor(ctx, connection, { maxWaitMs: 1000 });
    snareClientFor(context(), connection);
    const knobs = contentSnareClientFactory({ random: () => 0.5 });
    await knobs(connection, ctx);
    await knobs(connection, ctx);
    expect(built.limiters - before).toBe(4);
  });
});
