/**
 * Intake throughput over HTTP on the local runtime (embedded DynamoDB, file queue), 16
 * concurrent clients, signed deliveries of the real `issues.opened` payload with one
 * matching subscription, against two floors served by a bare node:http server on the same
 * bytes, in the same process (so the load generator weighs on all three alike):
 *   bare floor    = HMAC-SHA256 verify + JSON.parse
 *   durable floor = the same + one conditional PutItem into the same embedded DynamoDB.
 * Phase A measures the intake's own cost (verify, claim, map, route Query, enqueue) with
 * the dispatch consumer paused, in rounds alternating with the floors. Phase B starts the
 * consumer as `npm start` runs it, drains A's backlog, then sends BENCH_LATENCY_N more
 * deliveries with 16 clients and measures each from send to receipt at a fake agent runtime.
 * Goals: intake >= 0.5x the durable floor; delivery p99 < 1 s; every event once.
 *   npx tsx bench/intake-throughput.ts    (BENCH_N=1500 per round, BENCH_ROUNDS=3, BENCH_LATENCY_N=500)
 */
import { runLoop } from '../local/background';
import { closedLoop, statusText, throughput, type LoadResult, type Shot } from './lib/load';
import { startFloorServer } from './lib/floor-server';
import { startBenchRuntime } from './lib/local';
import { ReceiptCounter } from './lib/receipts';
import { envNumber, median, percentile, printFigures, runMain } from './lib/report';
import { issueOpenedBody, seedTenant, signedShot } from '../test/helpers/seed';

const n = envNumber('BENCH_N', 1500);
const rounds = envNumber('BENCH_ROUNDS', 3);
const latencyN = envNumber('BENCH_LATENCY_N', 500);
const concurrency = envNumber('BENCH_CONCURRENCY', 16);

async function main(): Promise<void> {
  const receipts = await ReceiptCounter.start();
  const rt = await startBenchRuntime(receipts.url, false);
  const tenant = await seedTenant(rt.ctx, 1);
  const body = issueOpenedBody();
  const bare = await startFloorServer(tenant.secret);
  const durable = await startFloorServer(tenant.secret, rt.ctx.store);
  const shots = (count: number): Shot[] => Array.from({ length: count }, () => signedShot(tenant, body));
  console.log(
    `intake throughput: ${rounds} rounds x ${n} deliveries (${body.length} bytes, issues.opened), ${concurrency} concurrent clients`,
  );

  // Phase A. Warm every path (JIT, sockets, table) before measuring.
  let expected = 200;
  for (const url of [bare.url, durable.url, rt.url]) await closedLoop(url, shots(200), concurrency);
  const product: LoadResult[] = [];
  const floors = { bare: [] as LoadResult[], durable: [] as LoadResult[] };
  for (let r = 0; r < rounds; r++) {
    floors.bare.push(await closedLoop(bare.url, shots(n), concurrency));
    floors.durable.push(await closedLoop(durable.url, shots(n), concurrency));
    product.push(await closedLoop(rt.url, shots(n), concurrency));
    expected += n;
  }

  // Phase B: the consumer as npm start runs it; A's backlog first, then timed deliveries.
  const stop = new AbortController();
  const consumer = runLoop(rt.jobs[0]!, stop.signal, rt.ctx.logger);
  const backlogDrained = await receipts.waitFor(expected, 120_000);
  const sentAt = new Map<string, number>();
  const batch = shots(latencyN);
  const timed = await closedLoop(rt.url, batch, concurrency, (i, a, at) => {
    if (a.status === 202) sentAt.set(batch[i]!.headers['x-github-delivery']!, at);
  });
  expected += latencyN;
  const drained = backlogDrained && (await receipts.waitFor(expected, 60_000));
  const latencies = receipts.receipts.flatMap((x) => {
    const at = sentAt.get(x.deliveryId);
    return at === undefined ? [] : [x.at - at];
  });

  const rate = (rs: LoadResult[]) => median(rs.map(throughput));
  const [productRate, durableRate, bareRate] = [rate(product), rate(floors.durable), rate(floors.bare)];
  const all = [...product, timed];
  const accepted = all.reduce((a, r) => a + (r.statuses.get(202) ?? 0), 0);
  console.log(`  product answers: ${all.map(statusText).join(' | ')}`);
  console.log(
    `  intake latency (phase A) p50 ${percentile(
      product.flatMap((r) => r.latencies),
      50,
    ).toFixed(1)} ms, p99 ${percentile(
      product.flatMap((r) => r.latencies),
      99,
    ).toFixed(1)} ms`,
  );
  console.log(
    `  events received ${receipts.distinct} of ${expected} (duplicates ${receipts.duplicates})${drained ? '' : ' (drain timed out)'}`,
  );
  printFigures('intake throughput (deliveries/s, median of rounds)', [
    {
      name: 'intake vs durable floor',
      value: productRate,
      unit: '/s',
      baseline: { name: 'durable floor', value: durableRate },
      goal: '>= 0.5x',
      pass: productRate >= 0.5 * durableRate,
    },
    {
      name: 'intake vs bare floor',
      value: productRate,
      unit: '/s',
      baseline: { name: 'bare floor', value: bareRate },
      goal: 'informational',
      pass: true,
    },
    {
      name: 'deliveries answered 202',
      value: accepted,
      unit: '',
      baseline: { name: 'sent', value: n * rounds + latencyN },
      goal: 'all',
      pass: accepted === n * rounds + latencyN,
    },
    {
      name: 'delivery to agent runtime p99 (phase B)',
      value: percentile(latencies, 99),
      unit: 'ms',
      goal: '< 1000 ms, every event once',
      pass: drained && receipts.duplicates === 0 && percentile(latencies, 99) < 1000,
    },
    { name: 'delivery to agent runtime p50 (phase B)', value: percentile(latencies, 50), unit: 'ms', goal: 'informational', pass: true },
  ]);
  stop.abort();
  await consumer;
  await bare.close();
  await durable.close();
  await rt.dispose();
  await receipts.close();
}

runMain(main);
