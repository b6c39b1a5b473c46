/**
 * Polling scale: BENCH_POLL_SUBS (10,000) polled subscriptions over 2,000 connections and
 * 3,000 distinct sources (each connection's gists, 1,000 organizations' repositories), on the
 * embedded default (dynalite, local queue), against a fake code host (test/helpers/
 * fake-polled-lists.ts) that waits 50 ms per request and counts requests. Then the same
 * with the sources, connections and subscriptions doubled, in its own table.
 * Per world: a first round (starts the shared cursors from the subscriptions' own), a round
 * with nothing new (all 304), three rounds with new items on 10% of the sources (median time;
 * requests counted).
 * Baseline from the same run: the previous design (one request per subscription, one after
 * another) timed on a small sample of the same kind of world and scaled to its subscriptions.
 * Goals: requests of a round = distinct sources; the round within the interval (60 s, and
 * the poller's 50 s timeout); doubled sources at most double the round's requests and time;
 * a source cursor that has seen 100,000 items stays a few KB.
 *   npx tsx bench/polling-scale.ts
 */
import { pollOnce, type PollOptions } from '../shared/polling/poll-once';
import { advanceCursor, type SourceCursor } from '../shared/providers/github/polling/source-cursor';
import { stopTestDynamo } from '../test/helpers/dynamo';
import { FakePolledLists } from '../test/helpers/fake-polled-lists';
import { seedPolledWorld, type WorldShape } from '../test/helpers/polled-world';
import { testContext } from '../test/helpers/test-context';
import { measurePollingSplit } from './lib/polling-split';
import { envNumber, median, printFigures, runMain } from './lib/report';

const subs = envNumber('BENCH_POLL_SUBS', 10_000);
const connections = envNumber('BENCH_POLL_CONNECTIONS', 2_000);
const sources = envNumber('BENCH_POLL_SOURCES', 3_000);
const delayMs = envNumber('BENCH_POLL_DELAY_MS', 50);
const intervalMs = 60_000;
/** `rounds` (the 10,000-subscription rounds above), `split` (100,000 sources over the planner and work items), or both. */
const parts = (process.env.BENCH_POLL_PARTS ?? 'rounds,split').split(',');
const splitSources = envNumber('BENCH_POLL_SPLIT_SOURCES', 100_000);
const pollerTimeoutMs = 50_000;

interface RoundFigures {
  requests: number;
  ms: number;
  announced: number;
  expected: number;
  subscriptions: number;
  sources: number;
}

async function world(shape: WorldShape, options: PollOptions = {}): Promise<RoundFigures> {
  const lists = await FakePolledLists.start(0);
  const t = await testContext({ GITHUB_API_URL: lists.url });
  t.ctx.clock = { now: () => Date.now() };
  const t0 = performance.now();
  const w = await seedPolledWorld(t.ctx, t.connect, lists, shape);
  console.log(
    `  seeded ${shape.subscriptions} subscriptions, ${shape.connections} connections, ${shape.sources} sources in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  lists.delayMs = delayMs;
  const round = async (name: string) => {
    lists.resetCounts();
    const started = performance.now();
    const report = await pollOnce(t.ctx, options);
    const ms = performance.now() - started;
    console.log(
      `  ${name}: ${(ms / 1000).toFixed(1)} s, ${lists.counts.requests} requests (${lists.counts.notModified} answered 304), max ${lists.counts.maxInFlight} in flight, ${lists.counts.maxInFlightPerToken} per token; ${JSON.stringify(report)}`,
    );
    return { report, ms };
  };
  await round('first round (shared cursors start)');
  await round('nothing new');
  // Three rounds with new items, each on a different 10% of the sources: the median time, every round's requests.
  const times: number[] = [];
  let requests = 0;
  let announced = 0;
  let expected = 0;
  for (let r = 0; r < 3; r++) {
    const changed = Array.from({ length: Math.ceil(shape.sources / 10) }, (_, i) => i * 10 + r).filter((s) => s < shape.sources);
    w.addItems(changed, new Date(Date.UTC(2026, 1, 1 + r)).toISOString());
    expected += changed.reduce((n, s) => n + w.sources[s]!.subs.length, 0);
    const { report, ms } = await round(`new items on 10% of sources (${r + 1} of 3)`);
    times.push(ms);
    requests = Math.max(requests, lists.counts.requests);
    announced += report.announced;
  }
  const subscriptions = w.sources.reduce((n, x) => n + x.subs.length, 0);
  t.close();
  await lists.close();
  return { requests, ms: median(times), announced, expected, subscriptions, sources: w.sources.length };
}

/** The bytes a cursor takes after `n` items, 100 a round; and what the previous design's growing `seen` list took. */
function cursorAfter(n: number): { bytes: number; previousBytes: number } {
  const t0 = Date.UTC(2026, 0, 1);
  const id = (i: number) => i.toString(16).padStart(32, '0');
  let cursor: SourceCursor = advanceCursor(undefined, [], undefined, new Date(t0).toISOString());
  for (let r = 0; r * 100 < n; r++) {
    const page = Array.from({ length: 100 }, (_, k) => ({
      id: id(r * 100 + k),
      createdAt: new Date(t0 + (r * 100 + k) * 1000).toISOString(),
    }));
    cursor = advanceCursor(cursor, page, '"0123456789abcdef0123456789abcdef01234567"', new Date(t0).toISOString());
  }
  const previous = {
    since: new Date(t0).toISOString(),
    etag: cursor.etag,
    seen: Array.from({ length: n }, (_, i) => id(i)),
    updatedAt: cursor.updatedAt,
  };
  return { bytes: Buffer.byteLength(JSON.stringify(cursor)), previousBytes: Buffer.byteLength(JSON.stringify(previous)) };
}

/** 100,000 sources over the planner and 20 workers, beside the previous single invocation measured in the same run. */
async function splitFigures() {
  console.log(`split: ${splitSources} sources over 10,000 connections, planner + 20 workers, 300 ms a read (a 304):`);
  const f = await measurePollingSplit({ sources: splitSources, connections: 10_000, workers: 20, latencyMs: 300 }, console.log);
  return [
    {
      name: `sources read in one round (${splitSources})`,
      value: f.full.read,
      unit: '',
      baseline: { name: 'previous design (one invocation, fixed order, 50 s)', value: f.previous.in50s },
      goal: `= ${splitSources}, each once, none stale`,
      pass: f.full.read === splitSources && f.full.maxReads === 1 && f.full.stale === 0,
    },
    {
      name: 'round time (plan + 20 workers)',
      value: f.full.ms / 1000,
      unit: 's',
      baseline: { name: 'previous design, every source in one invocation', value: splitSources / f.previous.perSecond },
      goal: `<= ${intervalMs / 1000} s (the interval)`,
      pass: f.full.ms <= intervalMs,
    },
    {
      name: `rounds until every source is read, ${f.capped.cap} a round`,
      value: f.capped.rounds,
      unit: '',
      baseline: { name: 'previous design: sources never read', value: splitSources - f.previous.in50s },
      goal: `= ceil(sources / cap) (${Math.ceil(splitSources / f.capped.cap)})`,
      pass: f.capped.rounds === Math.ceil(splitSources / f.capped.cap),
    },
  ];
}

async function main(): Promise<void> {
  if (!parts.includes('rounds')) {
    printFigures('polling split (planner + work items)', await splitFigures());
    await stopTestDynamo();
    return;
  }
  console.log(
    `polling scale: ${subs} subscriptions / ${connections} connections / ${sources} sources, ${delayMs} ms per request, embedded default`,
  );
  // The previous design, measured: one request per subscription, one after another.
  const sample = Math.max(20, Math.round(subs / 100));
  console.log(`previous design (sequential, one request per subscription), ${sample} subscriptions:`);
  const seq = await world({ subscriptions: sample, connections: sample, sources: sample }, { concurrency: 1, perConnection: 1 });
  const previousMs = (seq.ms / seq.requests) * subs;
  console.log(`this design, ${subs} subscriptions:`);
  const one = await world({ subscriptions: subs, connections, sources });
  console.log(`this design, doubled (${subs * 2} subscriptions):`);
  const two = await world({ subscriptions: subs * 2, connections: connections * 2, sources: sources * 2 });
  const cursor = cursorAfter(100_000);
  printFigures('polling scale (rounds with new items on 10% of sources: most requests of a round, median time, events of the three)', [
    {
      name: 'requests per round',
      value: one.requests,
      unit: 'req',
      baseline: { name: 'previous design (one per subscription)', value: one.subscriptions },
      goal: `= distinct sources (${one.sources})`,
      pass: one.requests === one.sources,
    },
    {
      name: 'round time',
      value: one.ms / 1000,
      unit: 's',
      baseline: { name: `previous design (${sample} timed in sequence, scaled)`, value: previousMs / 1000 },
      goal: `<= ${pollerTimeoutMs / 1000} s (poller timeout; interval ${intervalMs / 1000} s)`,
      pass: one.ms <= pollerTimeoutMs,
    },
    {
      name: 'events enqueued',
      value: one.announced,
      unit: '',
      baseline: { name: 'subscriptions of the changed sources', value: one.expected },
      goal: 'equal',
      pass: one.announced === one.expected,
    },
    {
      name: `requests, sources doubled (${two.sources})`,
      value: two.requests,
      unit: 'req',
      baseline: { name: `${one.sources} sources`, value: one.requests },
      goal: 'ratio <= 2',
      pass: two.requests <= 2 * one.requests && two.requests === two.sources,
    },
    {
      name: `round time, sources doubled (${two.sources})`,
      value: two.ms / 1000,
      unit: 's',
      baseline: { name: `${one.sources} sources`, value: one.ms / 1000 },
      goal: `ratio <= 2, and <= ${pollerTimeoutMs / 1000} s`,
      pass: two.ms <= 2 * one.ms && two.ms <= pollerTimeoutMs,
    },
    {
      name: 'events enqueued, sources doubled',
      value: two.announced,
      unit: '',
      baseline: { name: 'subscriptions of the changed sources', value: two.expected },
      goal: 'equal',
      pass: two.announced === two.expected,
    },
    {
      name: 'source cursor after 100,000 items',
      value: cursor.bytes / 1024,
      unit: 'KB',
      baseline: { name: "previous design's growing seen list", value: cursor.previousBytes / 1024 },
      goal: '<= 8 KB (DynamoDB item limit 400 KB)',
      pass: cursor.bytes <= 8 * 1024,
    },
    ...(parts.includes('split') ? await splitFigures() : []),
  ]);
  await stopTestDynamo();
}

runMain(main);
