import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Connection, Endpoint, Subscription, TriggerEvent } from '../../shared/domain/model';
import { historyRowsOfQueued } from '../../shared/dispatch/fan-out';
import { SnareHookRepo } from '../../shared/providers/contentsnare/snare-hook';
import { tagWatchRow } from '../../shared/providers/github/polling/poll-tags';
import type { Item } from '../../shared/ports';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { EndpointRepo } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { tableIndexes } from '../../shared/store/table-design';
import { stopTestDynamo, testStore } from '../helpers/dynamo';
import { recordPuts } from '../helpers/write-units';

/**
 * An index partition that every tenant's rows share caps the whole table at what one partition
 * takes (about 1,000 writes a second) and puts every tenant behind the busiest. This writes each
 * kind of row that carries an index key, for many tenants, through the code that writes it in
 * the product, and holds that no index partition holds more than a few tenants' rows.
 */

afterAll(async () => {
  await stopTestDynamo();
});

const tenants = 48;
const at = '2026-11-28T03:00:00.000Z';
const t0 = Date.parse(at);

function connection(n: number, over: Partial<Connection> = {}): Connection {
  return {
    id: `conn_${n}`,
    provider: 'github',
    accountLogin: `user${n}`,
    accountId: String(1000 + n),
    authMethod: 'oauth',
    status: 'connected',
    repositories: [],
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

function subscription(n: number, over: Partial<Subscription>): Subscription {
  return {
    id: `sub_${n}_${over.delivery ?? 'webhook'}_${over.installationId ?? over.endpointId ?? 'poll'}`,
    connectionId: `conn_${n}`,
    trigger: 'github.new_issue',
    agentId: 'agent-1',
    repository: `octo${n}/hello`,
    filters: {},
    delivery: 'webhook',
    createdAt: at,
    ...over,
  };
}

function endpoint(n: number): Endpoint {
  return {
    id: `ep_${n}`,
    connectionId: `conn_${n}`,
    target: { kind: 'repository', repository: `octo${n}/hello` },
    events: ['issues'],
    createdAt: at,
  };
}

function event(n: number): TriggerEvent {
  return {
    id: `evt_${n}`,
    trigger: 'github.new_issue',
    subscriptionId: `sub_${n}`,
    agentId: 'agent-1',
    connectionId: `conn_${n}`,
    deliveryId: `guid-${n}`,
    occurredAt: at,
    event: { repository: { full_name: `octo${n}/hello`, owner: { login: `octo${n}` } }, issue: { number: n } },
  };
}

/** The product's files that write an index key: each must be walked below. */
function filesWritingIndexKeys(): string[] {
  const root = join(__dirname, '../..');
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && /\bgsi[0-9]pk: /.test(readFileSync(path, 'utf8'))) out.push(relative(root, path));
    }
  };
  for (const dir of ['shared', 'functions', 'local']) walk(join(root, dir));
  return out.sort();
}

/** What each kind of row (its `pk` prefix) wrote in each index partition: the tenants whose rows landed there. */
function tenantsByPartition(rows: readonly { row: Item; tenant: number }[]): Map<string, Set<number>> {
  const byPartition = new Map<string, Set<number>>();
  for (const { row, tenant } of rows) {
    const kind = row.pk.split('#')[0];
    for (const ix of tableIndexes) {
      const value = row[ix.partitionKey];
      if (typeof value !== 'string') continue;
      const name = `${kind}: ${ix.name} ${value}`;
      byPartition.set(name, (byPartition.get(name) ?? new Set()).add(tenant));
    }
  }
  return byPartition;
}

describe('index partition keys', () => {
  it('walks every file that writes an index key', () => {
    expect(filesWritingIndexKeys()).toEqual([
      'shared/providers/contentsnare/snare-hook.ts',
      'shared/providers/github/polling/poll-tags.ts',
      'shared/store/api-key-repo.ts',
      'shared/store/connection-repo.ts',
      'shared/store/endpoint-repo.ts',
      'shared/store/event-history.ts',
      'shared/store/subscription-repo.ts',
    ]);
  });

  it('puts no index partition in common to many tenants: every kind of row spreads by its tenant or its id', async () => {
    const { store } = await testStore({ now: () => t0 });
    const { written } = recordPuts(store);
    const tenantOf = new Map<string, number>();
    for (let n = 0; n < tenants; n++) {
      const before = written().length;
      await new ConnectionRepo(store).create(connection(n));
      const installation = {
        id: 500 + n,
        account: { login: `org${n}`, id: String(n), type: 'Organization' as const },
        repositorySelection: 'all' as const,
        permissions: {},
        events: [],
      };
      await new ConnectionRepo(store).create(connection(n, { id: `conn_app_${n}`, authMethod: 'github_app', installation }));
      await new EndpointRepo(store).create(endpoint(n));
      const subs = new SubscriptionRepo(store);
      await subs.create(subscription(n, { endpointId: `ep_${n}` }));
      await subs.create(subscription(n, { installationId: 500 + n }));
      await subs.create(subscription(n, { delivery: 'polling', trigger: 'github.new_watcher' }));
      await new ApiKeyRepo(store).create({ id: `key_${n}`, label: `key ${n}`, connections: [`conn_${n}`], createdAt: at }, 'hash');
      await new SnareHookRepo(store).put({ connectionId: `conn_${n}`, events: ['request_published'], tokenSha256: 'ab', createdAt: at });
      const tags = subscription(n, { trigger: 'github.new_tag', endpointId: `ep_${n}` });
      await store.put(tagWatchRow({ subscription: tags, etags: [], seen: [], updatedAt: at }));
      await store.putAll(historyRowsOfQueued(event(n), JSON.stringify({ id: `evt_${n}` }), t0));
      for (const w of written().slice(before)) tenantOf.set(`${w.after.pk}\u0000${w.after.sk}`, n);
    }
    const rows = written().map((w) => ({ row: w.after, tenant: tenantOf.get(`${w.after.pk}\u0000${w.after.sk}`) ?? -1 }));
    const kinds = [
      ...new Set(rows.filter((r) => tableIndexes.some((ix) => r.row[ix.partitionKey] !== undefined)).map((r) => r.row.pk.split('#')[0])),
    ];
    expect(kinds.sort()).toEqual(['CONN', 'CSHOOK', 'CURSOR', 'EP', 'EVH', 'KEY', 'SUB']);
    // A partition of one tenant (its connection, endpoint, installation) holds one; a shard about a sixteenth of them.
    const crowded = [...tenantsByPartition(rows)]
      .filter(([, who]) => who.size > tenants / 4)
      .map(([name, who]) => `${name} (${who.size} tenants)`);
    expect(crowded).toEqual([]);
  });
});
