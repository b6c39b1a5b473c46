import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { intakeCaller } from '../helpers/intake-caller';
import { issueOpenedBody, seedTenant, signedShot } from '../helpers/seed';
import type { Key, Store } from '../../shared/ports';
import { keys } from '../../shared/store/table-design';
import { stopTestDynamo } from '../helpers/dynamo';
import { testContext, type TestContext } from '../helpers/test-context';

afterAll(stopTestDynamo);
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

describe('endpoint cache under a burst', () => {
  it('reads a cold endpoint, its secret and connection once for twenty deliveries arriving together', async () => {
    const t = await testContext();
    open.push(t);
    t.ctx.clock = { now: () => Date.now() };
    const tenant = await seedTenant(t.ctx, 1);
    const endpointKey = keys.endpoint(tenant.endpointId);
    let endpointReads = 0;
    let secretReads = 0;
    const store = t.ctx.store;
    t.ctx.store = {
      get: (k: Key, o?: { consistent?: boolean }) => {
        if (k.pk === endpointKey.pk && k.sk === endpointKey.sk) endpointReads++;
        return store.get(k, o);
      },
      getAll: (k, o) => store.getAll(k, o),
      put: (i, o) => store.put(i, o),
      putAll: (items) => store.putAll(items),
      delete: (k, o) => store.delete(k, o),
      query: (q) => store.query(q),
    } satisfies Store;
    const secrets = t.ctx.secrets;
    t.ctx.secrets = {
      get: (n, o) => {
        secretReads++;
        return secrets.get(n, o);
      },
      put: (n, v) => secrets.put(n, v),
      delete: (n) => secrets.delete(n),
    };
    const call = intakeCaller(t.ctx);
    const body = issueOpenedBody();
    const statuses = await Promise.all(Array.from({ length: 20 }, () => call(signedShot(tenant, body))));
    expect(statuses).toEqual(Array(20).fill(202));
    expect(endpointReads).toBe(1);
    expect(secretReads).toBe(1);
    expect(t.queues.queue.size()).toBe(20);
  });
});
