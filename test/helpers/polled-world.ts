import type { AppContext } from '../../shared/ports/app-context';
import type { Connection, Subscription } from '../../shared/domain/model';
import { writeCursor } from '../../shared/providers/github/polling/poll-cursor';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { FakePolledLists } from './fake-polled-lists';

export interface WorldShape {
  subscriptions: number;
  connections: number;
  /** Distinct (connection, list): each connection's gists, then organizations' repositories on the first connections. */
  sources: number;
}

export interface PolledWorld {
  connections: Connection[];
  /** Per source: its list key on the fake and the subscriptions on it. */
  sources: Array<{ list: string; subs: Subscription[] }>;
  /** Puts a new item first on the given sources' lists. */
  addItems(sourceIndexes: readonly number[], createdAt: string): void;
}

const day = Date.UTC(2026, 0, 1);

/** A gist (string id, as `gists/list` answers) or a repository (number id) with the fields both mappings read. */
function item(n: number, createdAt: string, owner: string, list: string) {
  return {
    id: list.startsWith('gists:') ? n.toString(16).padStart(32, '0') : n,
    name: `r${n}`,
    full_name: `${owner}/r${n}`,
    private: false,
    description: `item ${n}`,
    html_url: `https://github.example/${owner}/r${n}`,
    files: {},
    public: true,
    created_at: createdAt,
    updated_at: createdAt,
    owner: { login: owner, id: 7, type: 'User' },
  };
}

async function inPool<T>(items: readonly T[], concurrency: number, fn: (x: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

/**
 * Seeds a polling world of the given shape into a context and the fake lists: connections
 * (each its own token), lists of 5 items each, and subscriptions spread round-robin over
 * the sources, each with the baseline a subscription records when it is made (the newest
 * creation time and the ids listed). What a round then finds is only what `addItems` adds.
 */
export async function seedPolledWorld(
  ctx: AppContext,
  connect: (c: Partial<Connection>, token: string) => Promise<Connection>,
  lists: FakePolledLists,
  shape: WorldShape,
): Promise<PolledWorld> {
  const connections: Connection[] = new Array(shape.connections);
  await inPool(
    Array.from({ length: shape.connections }, (_, i) => i),
    16,
    async (i) => {
      const login = `user${i}`;
      const token = `ghp_polledWorld${String(i).padStart(25, '0')}`;
      lists.users.set(token, login);
      connections[i] = await connect({ accountLogin: login }, token);
    },
  );
  let serial = 1;
  const sources: PolledWorld['sources'] = [];
  for (let s = 0; s < shape.sources; s++) {
    const c = s % shape.connections;
    const login = `user${c}`;
    const list = s < shape.connections ? `gists:${login}` : `org:org${s}`;
    lists.lists.set(
      list,
      Array.from({ length: 5 }, (_, k) => item(serial++, new Date(day - k * 60_000).toISOString(), login, list)),
    );
    sources.push({ list, subs: [] });
  }
  const repo = new SubscriptionRepo(ctx.store);
  const now = new Date(day + 3600_000).toISOString();
  const subs = Array.from({ length: shape.subscriptions }, (_, i) => i);
  await inPool(subs, 16, async (i) => {
    const s = i % shape.sources;
    const source = sources[s]!;
    const connection = connections[s % shape.connections]!;
    const org = source.list.startsWith('org:') ? source.list.slice(4) : undefined;
    const sub: Subscription = {
      id: `sub_world${String(i).padStart(22, '0')}`,
      connectionId: connection.id,
      trigger: org ? 'github.new_repository' : 'github.new_gist',
      agentId: `agent-${i}`,
      ...(org ? { organization: org } : {}),
      filters: {},
      delivery: 'polling',
      createdAt: now,
    };
    source.subs.push(sub);
    const items = lists.lists.get(source.list)!;
    await writeCursor(ctx.store, sub.id, { since: String(items[0]!.created_at), seen: items.map((x) => String(x.id)), updatedAt: now });
    await repo.create(sub);
  });
  return {
    connections,
    sources,
    addItems(indexes, createdAt) {
      for (const s of indexes) {
        const source = sources[s]!;
        const owner = source.list.startsWith('gists:') ? source.list.slice(6) : source.list.slice(4);
        lists.lists.set(source.list, [item(serial++, createdAt, owner, source.list), ...lists.lists.get(source.list)!]);
      }
    },
  };
}
