import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { secretNames } from '../../shared/domain/model';
import type { Store } from '../../shared/ports';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { issueOpenedBody, seedTenant, signedShot } from '../helpers/seed';
import { intakeCaller } from '../helpers/intake-caller';
import { stopTestDynamo } from '../helpers/dynamo';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * The intake keeps an endpoint's record, secret and connection per container for a few
 * seconds (so steady state is one conditional write, one Query and one send per delivery).
 * RELIABILITY 6 must still hold: the cache never makes the intake accept what it should
 * refuse, nor refuse what it should accept.
 */
afterAll(stopTestDynamo);
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

function countingStore(inner: Store, counts: Record<string, number>): Store {
  const bump = (k: string) => (counts[k] = (counts[k] ?? 0) + 1);
  return {
    get: (k, o) => {
      bump('get');
      return inner.get(k, o);
    },
    getAll: (k, o) => {
      bump('getAll');
      return inner.getAll(k, o);
    },
    put: (i, o) => {
      bump('put');
      return inner.put(i, o);
    },
    putAll: (items) => {
      bump('putAll');
      return inner.putAll(items);
    },
    delete: (k, o) => {
      bump('delete');
      return inner.delete(k, o);
    },
    query: (q) => {
      bump('query');
      return inner.query(q);
    },
  } satisfies Store;
}

async function setup() {
  const t = await testContext();
  open.push(t);
  t.ctx.clock = { now: () => Date.now() };
  const tenant = await seedTenant(t.ctx, 1);
  return { t, tenant, call: intakeCaller(t.ctx), body: issueOpenedBody() };
}

describe('endpoint cache of the intake', () => {
  it('R6: a hook re-created with a new secret is verified with the new secret at once; the old secret is refused', async () => {
    const { t, tenant, call, body } = await setup();
    expect(await call(signedShot(tenant, body))).toBe(202);
    await t.secrets.put(secretNames.endpointSecret(tenant.endpointId), 'a-brand-new-secret-0123456789abcdef');
    expect(await call(signedShot({ ...tenant, secret: 'a-brand-new-secret-0123456789abcdef' }, body))).toBe(202);
    expect(await call(signedShot(tenant, body))).toBe(401);
  });

  it('R6: an unknown endpoint is not remembered: an endpoint created after a 404 is served at once', async () => {
    const { t, tenant, call, body } = await setup();
    const endpoint = await new EndpointRepo(t.ctx.store).get(tenant.endpointId);
    await new EndpointRepo(t.ctx.store).delete(tenant.endpointId);
    expect(await call(signedShot(tenant, body))).toBe(404);
    await new EndpointRepo(t.ctx.store).create(endpoint!);
    expect(await call(signedShot(tenant, body))).toBe(202);
  });

  it('R6: an endpoint whose secret is missing is refused every time, never cached as valid', async () => {
    const { t, tenant, call, body } = await setup();
    await t.secrets.delete(secretNames.endpointSecret(tenant.endpointId));
    expect(await call(signedShot(tenant, body))).toBe(401);
    expect(await call(signedShot(tenant, body))).toBe(401);
    expect(t.queues.queue.size()).toBe(0);
  });

  it('in steady state a delivery costs one claim (the signed body), one Query and one write of its two done marks, reading no endpoint, connection or secret', async () => {
    const { t, tenant, body } = await setup();
    const counts: Record<string, number> = {};
    t.ctx.store = countingStore(t.ctx.store, counts);
    let secretReads = 0;
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
    expect(await call(signedShot(tenant, body))).toBe(202);
    for (const k of Object.keys(counts)) delete counts[k];
    secretReads = 0;
    for (let i = 0; i < 5; i++) expect(await call(signedShot(tenant, body))).toBe(202);
    expect(counts).toEqual({ put: 5, query: 5, putAll: 5 });
    expect(secretReads).toBe(0);
    expect(t.queues.queue.size()).toBe(6);
  });
});
