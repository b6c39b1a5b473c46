import { afterAll, describe, expect, it } from 'vitest';
import type { Connection, Endpoint, Subscription } from '../../shared/domain/model';
import { SnareHookRepo } from '../../shared/providers/contentsnare/snare-hook';
import type { Item } from '../../shared/ports';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { tableIndexes } from '../../shared/store/table-design';
import { stopTestDynamo, testStore } from '../helpers/dynamo';
import { type IndexModel, putUnits, recordPuts } from '../helpers/write-units';

/**
 * What each configuration change costs in DynamoDB write units (docs/performance.md), counted
 * from the items written and the indexes each lands in, in the sharded layout and as the same
 * writes cost when every listing was one partition: the shards move the key, not the cost.
 */

afterAll(async () => {
  await stopTestDynamo();
});

const at = '2026-11-28T03:00:00.000Z';
const indexes: IndexModel[] = tableIndexes.map((ix) => ({ ...ix }));

/** A row as the layout before the shards wrote it: each listing in its one partition. */
function previousLayout(row: Item): Item {
  const out: Item = { ...row };
  for (const name of ['gsi1pk', 'gsi2pk'] as const) {
    const value = out[name];
    if (typeof value === 'string' && /^(CONNS|SUBS|EPS|KEYS|CSHOOKS|POLL#.*)#\d+$/.test(value)) out[name] = value.replace(/#\d+$/, '');
  }
  return out;
}

const connection: Connection = {
  id: 'conn_w',
  provider: 'github',
  accountLogin: 'octocat',
  authMethod: 'oauth',
  status: 'connected',
  repositories: [],
  createdAt: at,
  updatedAt: at,
};
const endpoint: Endpoint = {
  id: 'ep_w',
  connectionId: 'conn_w',
  target: { kind: 'repository', repository: 'octo/hello' },
  events: ['issues'],
  createdAt: at,
};
const subscription = (over: Partial<Subscription>): Subscription => ({
  id: 'sub_w',
  connectionId: 'conn_w',
  trigger: 'github.new_issue',
  agentId: 'agent-1',
  repository: 'octo/hello',
  filters: {},
  delivery: 'webhook',
  endpointId: 'ep_w',
  createdAt: at,
  ...over,
});

describe('configuration changes in write units', () => {
  it('cost what they cost before the listings were sharded: each change writes its row and each listing it is in once', async () => {
    const { store } = await testStore({ now: () => Date.parse(at) });
    const { written } = recordPuts(store);
    const changes: [string, () => Promise<unknown>][] = [
      ['connection created', () => new ConnectionRepo(store).create(connection)],
      ['connection changed', () => new ConnectionRepo(store).update('conn_w', (c) => ({ ...c, label: 'work' }))],
      ['endpoint created', () => new EndpointRepo(store).create(endpoint)],
      ['webhook subscription created', () => new SubscriptionRepo(store).create(subscription({}))],
      [
        'polled subscription created',
        () =>
          new SubscriptionRepo(store).create(
            subscription({ id: 'sub_p', delivery: 'polling', endpointId: undefined, trigger: 'github.new_watcher' }),
          ),
      ],
      ['scoped key created', () => new ApiKeyRepo(store).create({ id: 'key_w', label: 'k', connections: ['conn_w'], createdAt: at }, 'h')],
      ['scoped key loses a connection', () => new ApiKeyRepo(store).removeConnection('conn_w')],
      [
        'collection-service hook made',
        () => new SnareHookRepo(store).put({ connectionId: 'conn_w', events: [], tokenSha256: 'ab', createdAt: at }),
      ],
    ];
    const units: Record<string, { now: number; before: number }> = {};
    for (const [name, change] of changes) {
      const from = written().length;
      await change();
      const total = (layout: (r: Item) => Item) =>
        written()
          .slice(from)
          .map((w) => putUnits(indexes, w.before && layout(w.before), layout(w.after)))
          .reduce((sum, u) => sum + u.item + Object.values(u.index).reduce((a, b) => a + b, 0), 0);
      units[name] = { now: total((r) => r), before: total(previousLayout) };
    }
    expect(units).toEqual({
      'connection created': { now: 2, before: 2 },
      'connection changed': { now: 2, before: 2 },
      'endpoint created': { now: 2, before: 2 },
      'webhook subscription created': { now: 3, before: 3 },
      'polled subscription created': { now: 3, before: 3 },
      'scoped key created': { now: 2, before: 2 },
      'scoped key loses a connection': { now: 2, before: 2 },
      'collection-service hook made': { now: 2, before: 2 },
    });
  });

  it('costs one more index write, once, to move a row the previous layout wrote to its shard', async () => {
    const { store } = await testStore({ now: () => Date.parse(at) });
    await new ConnectionRepo(store).create(connection);
    const row = (await store.get({ pk: 'CONN#conn_w', sk: 'CONN' })) as Item;
    await store.put(previousLayout(row));
    const { written } = recordPuts(store);
    let n = 0;
    const change = () => new ConnectionRepo(store).update('conn_w', (c) => ({ ...c, label: `label ${++n}` }));
    await change();
    await change();
    // The first rewrite finds the row in the old partition (the recorder saw no earlier write: give it the old row).
    const [first, second] = written();
    expect(first && putUnits(indexes, previousLayout(row), first.after)).toEqual({ item: 1, index: { gsi1: 0, gsi2: 2, gsi3: 0 } });
    expect(second && putUnits(indexes, second.before, second.after)).toEqual({ item: 1, index: { gsi1: 0, gsi2: 1, gsi3: 0 } });
  });
});
