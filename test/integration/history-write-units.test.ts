import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { enqueueEvents } from '../../shared/dispatch/fan-out';
import type { Item } from '../../shared/ports';
import { bodyRow, readBody } from '../../shared/store/event-history';
import { keys, tableDesign, tableIndexes } from '../../shared/store/table-design';
import { consumerPass } from '../helpers/consumer-pass';
import { stopTestDynamo } from '../helpers/dynamo';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { testContext, type TestContext } from '../helpers/test-context';
import { type IndexModel, putUnits, recordPuts } from '../helpers/write-units';

/**
 * What the event history costs per delivered event in DynamoDB write units, counted from the
 * items it writes and the indexes each lands in (docs/performance.md, "Cost and capacity"),
 * beside what the same writes cost in the layout before the shards: every summary in gsi2 `EVTS`
 * as well as gsi1 `EVTC#<connection>`, both indexes projecting every attribute.
 */

let runtime: FakeAgentRuntime;
beforeAll(async () => {
  runtime = await FakeAgentRuntime.start();
});
afterAll(async () => {
  await runtime.close();
  await stopTestDynamo();
});
const open: TestContext[] = [];
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

const indexes: IndexModel[] = tableIndexes.map((ix) => ({ ...ix, projection: ix.projection }));
const previousIndexes: IndexModel[] = [
  { ...tableDesign.gsi1, projection: 'all' },
  { ...tableDesign.gsi2, projection: 'all' },
];

/** A row as the previous layout wrote it: a summary in the one all-events partition, not in a shard; a body as it came. */
function previousLayout(row: Item): Item {
  if (row.sk === 'BODY' && row.bodyGzip instanceof Uint8Array) {
    const { bodyGzip, ...rest } = row;
    return { ...rest, body: gunzipSync(bodyGzip).toString('utf8') };
  }
  if (row.sk !== 'EVH') return row;
  const { gsi3pk: _pk, gsi3sk, ...rest } = row;
  return { ...rest, gsi2pk: 'EVTS', gsi2sk: gsi3sk };
}

function event(n: number): TriggerEvent {
  return {
    id: `evt_w${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-27T10:00:00.000Z',
    // About the size of an issue's event as the code host's `issues.opened` maps (1.1 KB queued).
    event: {
      repository: { full_name: 'octo/hello', owner: { login: 'octo' } },
      issue: {
        number: n,
        title: 'A bug',
        html_url: `https://github.com/octo/hello/issues/${n}`,
        body: 'Steps to reproduce: open the page, press the button, see the error. '.repeat(10),
        labels: ['bug', 'triage'],
      },
    },
  };
}

/** The history's write units of each put, in the order made, under `model`. */
function unitsOf(written: { before: Item | undefined; after: Item }[], model: IndexModel[], layout: (row: Item) => Item = (r) => r) {
  return written
    .filter((w) => w.after.pk.startsWith('EVH#'))
    .map((w) => {
      const u = putUnits(model, w.before && layout(w.before), layout(w.after));
      return { row: w.after.sk, item: u.item, index: Object.values(u.index).reduce((a, b) => a + b, 0), byIndex: u.index };
    });
}

describe('the event history in write units', () => {
  it('costs two write units less per delivered event than before: a delivery rewrites the summary without touching the shards, and the body is kept gzipped', async () => {
    const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
    open.push(t);
    const { written } = recordPuts(t.ctx.store);
    await enqueueEvents(t.ctx, [event(1)]);
    await consumerPass(t.ctx, t.queues.queue);
    expect(runtime.events().map((e) => e.id)).toEqual([event(1).id]);

    const now = unitsOf(written(), indexes);
    // Queued: the summary (in its connection's partition and its shard) and the body; delivered: the summary again.
    expect(now.map((u) => u.row)).toEqual(['EVH', 'BODY', 'EVH']);
    expect(now[0]?.byIndex).toEqual({ gsi1: 1, gsi2: 0, gsi3: 1 });
    expect(now[2]?.byIndex).toEqual({ gsi1: 1, gsi2: 0, gsi3: 0 });
    expect(now[1]?.item).toBe(1);
    const total = (us: typeof now) => us.reduce((n, u) => n + u.item + u.index, 0);
    expect(total(now)).toBe(6);

    const before = unitsOf(written(), previousIndexes, previousLayout);
    expect(before[1]?.item).toBe(2);
    expect(before[2]?.byIndex).toEqual({ gsi1: 1, gsi2: 1 });
    expect(total(before)).toBe(8);
    expect((await t.ctx.store.get(keys.eventHistory(event(1).id)))?.status).toBe('delivered');
    // Kept gzipped, read back as queued.
    const body = await readBody(t.ctx.store, event(1).id);
    expect(body && 'json' in body ? JSON.parse(body.json) : undefined).toMatchObject({
      id: event(1).id,
      event: { issue: { labels: ['bug', 'triage'] } },
    });
  });

  it('reads a body kept as it came (a short event, or a row written before bodies were gzipped)', async () => {
    const t = await testContext({ AGENT_RUNTIME_URL: runtime.url });
    open.push(t);
    const json = JSON.stringify({ id: 'evt_plain', note: 'short' });
    await t.ctx.store.putAll([bodyRow('evt_plain', t.clock.now(), { json })]);
    expect(await t.ctx.store.get(keys.eventBody('evt_plain'))).toMatchObject({ body: json });
    expect(await readBody(t.ctx.store, 'evt_plain')).toEqual({ json });
  });
});
