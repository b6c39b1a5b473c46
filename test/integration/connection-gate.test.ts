import { afterAll, describe, expect, it } from 'vitest';
import { connectionGateTtlMs, connectionTakesEvents } from '../../shared/dispatch/connection-gate';
import type { Store } from '../../shared/ports';
import { stopTestDynamo } from '../helpers/dynamo';
import { testContext } from '../helpers/test-context';

afterAll(() => stopTestDynamo());

/** The store, its reads counted, and the next `failing` reads refused as a throttled table would. */
function watched(store: Store): { store: Store; gets: () => number; fail: (n: number) => void } {
  let gets = 0;
  let failing = 0;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name !== 'get' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        gets++;
        if (failing > 0) {
          failing--;
          throw new Error('ProvisionedThroughputExceededException');
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, gets: () => gets, fail: (n) => (failing = n) };
}

describe('the connection gate of dispatch', () => {
  it('reads a connection once for the events of it that arrive together, and again once its five seconds have passed', async () => {
    const t = await testContext();
    const w = watched(t.ctx.store);
    const ctx = { store: w.store, clock: t.clock };
    const answers = await Promise.all(Array.from({ length: 10 }, () => connectionTakesEvents(ctx, 'conn_busy')));
    expect(answers).toEqual(Array(10).fill(true));
    expect(w.gets()).toBe(1);
    t.clock.advance(connectionGateTtlMs);
    await connectionTakesEvents(ctx, 'conn_busy');
    expect(w.gets()).toBe(2);
    t.close();
  });

  it('keeps no failed read: the events waiting on it fail, and the next one reads again', async () => {
    const t = await testContext();
    const w = watched(t.ctx.store);
    const ctx = { store: w.store, clock: t.clock };
    w.fail(1);
    const first = await Promise.allSettled([connectionTakesEvents(ctx, 'conn_x'), connectionTakesEvents(ctx, 'conn_x')]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(w.gets()).toBe(1);
    expect(await connectionTakesEvents(ctx, 'conn_x')).toBe(true);
    expect(w.gets()).toBe(2);
    t.close();
  });
});
