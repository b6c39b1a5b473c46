import { describe, expect, it } from 'vitest';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { matchesSubscription as matchesIn } from '../../shared/domain/subscription-match';
import { triggerCatalog } from '../../shared/wiring/providers';
import { examplePayload } from '../helpers/signed-delivery';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import { platformApiCaller } from '../helpers/platform-api-caller';

const matchesSubscription = (sub: Parameters<typeof matchesIn>[0], mapped: Parameters<typeof matchesIn>[1]) =>
  matchesIn(sub, mapped, triggerCatalog);

const token = 'ghp_columnTestToken00000000000000000000000';
const host = useFakeCodeHost({ [token]: 'Codertocat' }, { env: { PUBLIC_URL: 'https://hooks.example' } });

async function setup() {
  const t = await host.context();
  const connection = await t.connect({ accountLogin: 'Codertocat' }, token);
  const call = platformApiCaller(t.ctx);
  const subscribe = (column: string | number) =>
    call('POST', '/subscriptions', {
      connectionId: connection.id,
      agentId: 'agent-c',
      trigger: 'github.new_card_in_column',
      repository: 'Codertocat/Hello-World',
      filters: { column },
    });
  return { subscribe };
}

/** The first project_card.created example's card is in column 5368157. */
const board = [
  {
    id: 2640902,
    name: 'Roadmap',
    columns: [
      { id: 5368157, name: 'To do' },
      { id: 5368158, name: 'Done' },
    ],
  },
  {
    id: 2640903,
    name: 'Bugs',
    columns: [
      { id: 9999467, name: 'Triage' },
      { id: 9999468, name: 'Done' },
    ],
  },
];

describe('new_card_in_column: the column by name or id', () => {
  it('a column name is looked up when subscribing and stored as its id, which the payloads carry', async () => {
    host.github.classicProjects.set('repos/Codertocat/Hello-World', board);
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
    expect(host.github.requests.some((r) => r.path.includes('/projects'))).toBe(false);
  });

  it('an unknown name, a name in several projects, or no classic projects at all is a 400 naming filters.column', async () => {
    const { subscribe } = await setup();
    const none = await subscribe('To do');
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('filters.column');
    expect(JSON.stringify(none.body)).toContain('column id');

    host.github.classicProjects.set('repos/Codertocat/Hello-World', board);
    const unknown = await subscribe('Doing');
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('no classic project column named');
    const several = await subscribe('Done');
    expect(several.status).toBe(400);
    expect(JSON.stringify(several.body)).toMatch(/5368158.*9999468/);
  });
});
