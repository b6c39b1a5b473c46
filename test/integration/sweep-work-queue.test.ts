import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLocalQueues, type LocalQueues } from '../../shared/adapters/local/local-queues';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { keys } from '../../shared/store/table-design';
import { acquireLease } from '../../shared/store/lease';
import type { AppContext } from '../../shared/ports/app-context';
import type { OutgoingMessage } from '../../shared/ports';
import type { SweepWorkItem } from '../../shared/sweep/sweep-item';
import { planSweepRound } from '../../shared/sweep/sweep-plan';
import { sweepWorkItems, type SweepWorkOptions } from '../../shared/sweep/sweep-work';
import { useFakeCodeHost } from '../helpers/code-host-setup';
import type { TestContext } from '../helpers/test-context';

const users = Object.fromEntries(
  ['octocat', 'hubot', 'monalisa', 'defunkt'].map((login, i) => [`ghp_sweepWork${i}${'0'.repeat(30)}`, login]),
);
const host = useFakeCodeHost(users);
const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const q of open.splice(0)) q.close();
});

interface Hook {
  hookId: number;
  endpointId: string;
  connectionId: string;
}

/** `hooksEach` hooks of ours on each of the four users' connections, registered at the fake code host. */
async function world(hooksEach: number) {
  const t = await host.context();
  const work = openLocalQueues({ dir: mkdtempSync(join(tmpdir(), 'sweep-work-')), name: 'sweep-work', clock: t.clock, maxReceives: 3 });
  open.push(work);
  const hooks: Hook[] = [];
  for (const [token, login] of Object.entries(users)) {
    const connection = await t.connect({}, token);
    for (let i = 0; i < hooksEach; i++) {
      const target = { kind: 'repository' as const, repository: `${login}/r${i}` };
      const endpointId = endpointIdFor(connection.id, target);
      const hookId = 5000 + hooks.length;
      host.github.hooks.set(hookId, {
        id: hookId,
        owner: `repos/${login}/r${i}`,
        name: 'web',
        active: true,
        events: ['issues'],
        config: { url: `http://x/webhooks/github/${endpointId}`, content_type: 'json', secret: 's' },
      });
      await new EndpointRepo(t.ctx.store).create({
        id: endpointId,
        connectionId: connection.id,
        target,
        hookId,
        events: ['issues'],
        createdAt: new Date(t.clock.now()).toISOString(),
      });
      hooks.push({ hookId, endpointId, connectionId: connection.id });
    }
  }
  return { t, work, hooks };
}

/** `count` deliveries of the hook GitHub logged with no answer (the intake never saw them), within the last minutes. */
function lose(t: TestContext, hookId: number, count: number, tag = 'lost'): void {
  for (let i = 0; i < count; i++) {
    host.github.recordDelivery(hookId, {
      guid: `${tag}-${hookId}-${i}`,
      event: 'issues',
      status_code: 0,
      delivered_at: new Date(t.clock.now() - 60_000 + Math.floor((i * 50_000) / count)).toISOString(),
    });
  }
}

/** `n` workers side by side, each taking up to 4 items at a time until the queue is empty: the items each took, the stale and continued ones, the requests that failed. */
async function runWorkers(ctx: AppContext, work: LocalQueues, n: number, options: SweepWorkOptions = {}) {
  const taken = Array.from({ length: n }, () => 0);
  const totals = { stale: 0, continued: 0, failed: 0 };
  await Promise.all(
    taken.map(async (_, w) => {
      for (;;) {
        const batch = await work.queue.receive(4, 240);
        if (batch.length === 0) return;
        taken[w] = (taken[w] ?? 0) + batch.length;
        const { report, failedMessageIds } = await sweepWorkItems(ctx, batch, { continueOn: work.queue, ...options });
        totals.stale += report.stale;
        totals.failed += report.failed;
        totals.continued += report.continued;
        for (const m of batch) if (!failedMessageIds.includes(m.messageId)) await work.queue.delete(m.receiptHandle);
      }
    }),
  );
  return { taken, ...totals };
}

/** The work items on the queue now, with their groups, left where they are. */
function itemsQueued(work: LocalQueues): Array<SweepWorkItem & { group?: string }> {
  return work.queue
    .peek(1000)
    .map((m) => ({ ...(JSON.parse(m.body) as SweepWorkItem), ...(m.group !== undefined ? { group: m.group } : {}) }));
}

/** A queue that only records what is sent to it. */
function recording(): { sendBatch(m: OutgoingMessage[]): Promise<void>; items: SweepWorkItem[] } {
  const items: SweepWorkItem[] = [];
  return {
    items,
    sendBatch: async (messages) => {
      items.push(...messages.map((m) => JSON.parse(m.body) as SweepWorkItem));
    },
  };
}

/** The distinct deliveries asked for again, per hook. */
function askedPerHook(): Map<number, number> {
  const out = new Map<number, Set<number>>();
  for (const r of host.github.redeliveries) out.set(r.hookId, (out.get(r.hookId) ?? new Set()).add(r.deliveryId));
  return new Map([...out].map(([hook, ids]) => [hook, ids.size]));
}

describe('the sweep is planned as one work item per hook that many workers walk', () => {
  it('finds a burst of 3,150 lost deliveries across 24 hooks of 4 tenants within one interval: each asked for once, a hook past its page budget continued at once', async () => {
    const { t, work, hooks } = await world(6);
    for (const h of hooks) lose(t, h.hookId, 100);
    // One hook lost more than its page budget (20 pages of 100) in the burst.
    const [longest] = hooks;
    lose(t, longest?.hookId as number, 750, 'more');
    const plan = await planSweepRound(t.ctx, work.queue);
    expect(plan).toMatchObject({ hooks: 24, planned: 24 });
    const items = itemsQueued(work);
    // One hook per item, grouped by its connection: a tenant's many hooks hold back no other's.
    expect(items).toHaveLength(24);
    expect(new Set(items.map((i) => i.hook))).toEqual(new Set(hooks.map((h) => h.endpointId)));
    for (const i of items) expect(i.group).toBe(hooks.find((h) => h.endpointId === i.hook)?.connectionId);
    t.clock.advance(1000);

    const { taken, stale, continued, failed } = await runWorkers(t.ctx, work, 3, { pagesPerHook: 5 });
    for (const n of taken) expect(n).toBeGreaterThan(0);
    const asked = askedPerHook();
    expect(asked.size).toBe(24);
    for (const h of hooks) expect(asked.get(h.hookId)).toBe(h === longest ? 850 : 100);
    // Asked for once each; only a request the code host did not answer in time (a loaded machine) is asked for again.
    const ids = host.github.redeliveries.map((r) => r.deliveryId);
    expect(new Set(ids).size).toBe(23 * 100 + 850);
    expect(ids.length - new Set(ids).size).toBeLessThanOrEqual(failed);
    // The long hook's walk (9 pages at 5 a time) went on at once in an item of its own, within the round's interval.
    expect(continued).toBe(1);
    expect(taken.reduce((a, b) => a + b, 0)).toBe(24 + 1);
    expect(stale).toBe(0);
    const state = await t.ctx.store.get<{ pk: string; sk: string; walk?: unknown; lastWalkStartedAt?: number }>(
      keys.sweepCursor(longest?.endpointId as string),
    );
    expect(state?.walk).toBeUndefined();
    expect(state?.lastWalkStartedAt).toEqual(expect.any(Number));

    // The next round finds nothing new to ask for.
    t.clock.advance(5 * 60_000);
    await planSweepRound(t.ctx, work.queue);
    await runWorkers(t.ctx, work, 3);
    expect(new Set(host.github.redeliveries.map((r) => r.deliveryId)).size).toBe(23 * 100 + 850);
  }, 120_000);

  it('plans at most maxHooksPerRound hooks a round, the next round from the first left out, so every hook is walked within ceil(hooks / max) rounds', async () => {
    const { t, hooks } = await world(3);
    const rounds: string[][] = [];
    for (let round = 0; round < Math.ceil(12 / 5); round++) {
      const sent = recording();
      expect(await planSweepRound(t.ctx, sent, { maxHooksPerRound: 5 })).toMatchObject({ hooks: 12, planned: 5 });
      rounds.push(sent.items.map((i) => i.hook));
      t.clock.advance(5 * 60_000);
    }
    expect(new Set(rounds.flat())).toEqual(new Set(hooks.map((h) => h.endpointId)));
    // Each round starts where the last one stopped: the first two rounds share no hook.
    expect(rounds[1]?.filter((h) => rounds[0]?.includes(h))).toEqual([]);
  });

  it('walks a hook with one worker at a time: an item of a hook another worker holds is dropped, its walk carried on by the holder', async () => {
    const { t, work, hooks } = await world(1);
    const [held, free] = hooks;
    lose(t, held?.hookId as number, 3);
    lose(t, free?.hookId as number, 3);
    // Another worker is walking the first hook (its lease taken, not yet given back).
    expect(await acquireLease(t.ctx.store, t.clock, `sweep#${held?.endpointId}`, 'other-worker', 150)).toBeDefined();
    await planSweepRound(t.ctx, work.queue);
    const batch = await work.queue.receive(10, 240);
    const { report } = await sweepWorkItems(t.ctx, batch);
    expect(report).toMatchObject({ endpoints: 4, busy: 1, redelivered: 3 });
    expect(askedPerHook().get(held?.hookId as number)).toBeUndefined();
  });

  it('drops an item first received more than an interval after its round; retries one whose hook failed and dead-letters it after 3 receives; does not retry a hook the code host refused', async () => {
    const { t, work, hooks } = await world(1);
    const [stale, failing, refused] = hooks;
    await planSweepRound(t.ctx, work.queue);
    t.clock.advance(t.ctx.config.sweepIntervalSeconds * 1000 + 1000);
    const late = await work.queue.receive(10, 240);
    expect((await sweepWorkItems(t.ctx, late)).report).toMatchObject({ stale: 4, pages: 0 });
    for (const m of late) await work.queue.delete(m.receiptHandle);
    lose(t, stale?.hookId as number, 1);

    // A hook whose listing fails on the code host's side (5xx) and one it no longer has (404).
    host.github.hooks.delete(refused?.hookId as number);
    const down: AppContext = {
      ...t.ctx,
      fetch: async (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (url.includes(`/hooks/${failing?.hookId}/`)) return new Response('{"message":"boom"}', { status: 502 });
        return t.ctx.fetch(input, init);
      },
    };
    await planSweepRound(t.ctx, work.queue);
    let failedReceives = 0;
    for (let receive = 0; receive < 5; receive++) {
      const batch = await work.queue.receive(10, 1);
      if (batch.length === 0) break;
      const { failedMessageIds } = await sweepWorkItems(down, batch);
      failedReceives += failedMessageIds.length;
      for (const m of batch) if (!failedMessageIds.includes(m.messageId)) await work.queue.delete(m.receiptHandle);
      t.clock.advance(2000);
    }
    expect(failedReceives).toBe(3);
    const dead = work.dlq.peek(10).map((d) => (JSON.parse(d.body) as SweepWorkItem).hook);
    expect(dead).toEqual([failing?.endpointId]);
    // The hooks that could be read were walked once: the stale round's lost delivery found by the next round.
    expect(askedPerHook().get(stale?.hookId as number)).toBe(1);
  });
});
