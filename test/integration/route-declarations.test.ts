import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localRouteDeclarations, localRoutes } from '../../local/routes';
import { stopTestDynamo } from '../helpers/dynamo';
import { testContext, type TestContext } from '../helpers/test-context';

/**
 * The OpenAPI document is generated from the route tables alone, without a context: the tables
 * must be exactly what the local runtime serves, route for route and in the same order (the
 * order decides which of two matching patterns answers).
 */
describe('the route declarations the document is built from', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await testContext();
  });
  afterAll(async () => {
    t.close();
    await stopTestDynamo();
  });

  it('are the routes the local runtime serves, in the order it matches them', () => {
    const served = localRoutes(t.ctx, t.queues).map((r) => `${r.method} ${r.pattern}`);
    const declared = localRouteDeclarations.map((r) => `${r.method} ${r.pattern}`);
    expect(declared).toEqual(served);
    expect(localRouteDeclarations.every((r) => r.spec !== undefined)).toBe(true);
  });
});
