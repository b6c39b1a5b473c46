import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { routes as platformRoutes } from '../../functions/platform-api/routes';
import { createRouter } from '../../shared/http/router';
import { mapDelivery } from '../../shared/domain/mapping/map-delivery';
import { matchesSubscription } from '../../shared/domain/subscription-match';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeGitHub } from '../helpers/fake-github-server';
import { examplePayload } from '../helpers/signed-delivery';
import { testContext, testPlatformKey, type TestContext } from '../helpers/test-context';

const token = 'ghp_columnTestToken00000000000000000000000';
let github: FakeGitHub;
beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
});
afterAll(async () => {
  await github.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
  github.classicProjects.clear();
  github.requests.length = 0;
});

async function setup() {
  const t = await testContext({ GITHUB_API_URL: github.url, PUBLIC_URL: 'https://hooks.example' });
  open.push(t);
  const connection = await t.connect({ accountLogin: 'Codertocat' }, token);
  const router = createRouter(platformRoutes(t.ctx), { platformApiKey: async () => testPlatformKey });
  const subscribe = async (column: string | number) => {
    const res = await router({
      method: 'POST',
      path: '/subscriptions',
      headers: { authorization: `Bearer ${testPlatformKey}` },
      query: new URLSearchParams(),
      body: Buffer.from(JSON.stringify({ connectionId: connection.id, agentId: 'agent-c', trigger: 'github.new_card_in_column', repository: 'Codertocat/Hello-World', filters: { column } })),
    });
    return { status: res.status, body: JSON.parse(String(res.body)) as Record<string, any> };
  };
  return { subscribe };
}

/** The first project_card.created example's card is in column 5368157. */
const board = [
  { id: 2640902, name: 'Roadmap', columns: [{ id: 5368157, name: 'To do' }, { id: 5368158, name: 'Done' }] },
  { id: 2640903, name: 'Bugs', columns: [{ id: 9999467, name: 'Triage' }, { id: 9999468, name: 'Done' }] },
];

describe('new_card_in_column: the column by name or id', () => {
  it('a column name is looked up when subscribing and stored as its id, which the payloads carry', async () => {
    github.classicProjects.set('repos/Codertocat/Hello-World', board);
    const { subscribe } = await setup();
    const res = await subscribe('to DO');
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.filters.column).toBe('5368157');
    const [card] = mapDelivery({ event: 'project_card', payload: examplePayload('project_card', 'created'), accountLogin: 'Codertocat' });
    expect(card?.facts.column?.id).toBe('5368157');
    expect(matchesSubscription(res.body as never, card!)).toBe(true);
  });

  it('an id is kept as given, without asking the code host', async () => {
    const { subscribe } = await setup();
    const res = await subscribe(9999467);
    expect(res.status).toBe(201);
    expect(res.body.filters.column).toBe('9999467');
    expect(github.requests.some((r) => r.path.includes('/projects'))).toBe(false);
  });

  it('an unknown name, a name in several projects, or no classic projects at all is a 400 naming filters.column', async () => {
    const { subscribe } = await setup();
    const none = await subscribe('To do');
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('filters.column');
    expect(JSON.stringify(none.body)).toContain('column id');

    github.classicProjects.set('repos/Codertocat/Hello-World', board);
    const unknown = await subscribe('Doing');
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('no classic project column named');
    const several = await subscribe('Done');
    expect(several.status).toBe(400);
    expect(JSON.stringify(several.body)).toMatch(/5368158.*9999468/);
  });
});
