/**
 * What one call to the embedded DynamoDB costs the process that makes it: CPU time of every
 * thread (the SDK on the main thread, dynalite in its worker, libuv's pool) per call, for the
 * calls a delivery makes (a conditional put: the claims; a Query: the route; a putAll of two
 * items: the done marks), 8 in flight, as the product makes them. The baseline is the same
 * process doing nothing but a timer of the same length, so the figure is the calls' own cost.
 * It is the unit of docs/performance.md's accounting of the pipeline against its floor: the
 * floor makes one such call per request, the pipeline's guarantees need at least three.
 *   npx tsx bench/store-call-cost.ts     (BENCH_N=3000 calls per kind)
 */
import { performance } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../shared/adapters/local/embedded-dynamo';
import { systemClock } from '../shared/ports';
import { envNumber, printFigures, runMain, type Figure } from './lib/report';

const n = envNumber('BENCH_N', 3000);
const inFlight = 8;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU of every thread and main-thread busy time per call, after a warm-up. */
async function perCall(call: (i: number) => Promise<unknown>): Promise<{ cpu: number; main: number; wallMs: number }> {
  for (let i = 0; i < 300; i++) await call(-i - 1);
  const elu = performance.eventLoopUtilization();
  const cpu = cpuMs();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await call(next++);
    }),
  );
  const wallMs = performance.now() - started;
  return { cpu: (cpuMs() - cpu) / n, main: performance.eventLoopUtilization(elu).active / n, wallMs };
}

async function main(): Promise<void> {
  const dynamo = await startEmbeddedDynamo();
  const client = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
  await ensureTable(client, 'bench-calls');
  const store = new DynamoStore('bench-calls', client, systemClock);
  const item = (i: number) => ({
    pk: `DLVB#ep_bench#${i}`,
    sk: 'DLVB',
    state: 'in_progress',
    ttl: Math.floor(Date.now() / 1000) + 60,
    endpointId: 'ep_bench',
    deliveryId: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
    event: 'issues',
  });
  const kinds: Array<[string, (i: number) => Promise<unknown>]> = [
    ['conditional put (a claim)', (i) => store.put(item(i), { ifNotExists: true })],
    ['Query (a route)', (i) => store.query({ pk: `DLVB#ep_bench#${i}` })],
    ['putAll of 2 items (done marks)', (i) => store.putAll([item(i + 10_000_000), item(i + 20_000_000)])],
  ];
  // The baseline: the process idle for as long, so what the runtime costs by itself is known.
  const idle = await perCall(() => new Promise((r) => setTimeout(r, 0)));
  const figures: Figure[] = [];
  console.log(`store call cost: ${n} calls per kind, ${inFlight} in flight, embedded DynamoDB in a worker thread`);
  for (const [name, call] of kinds) {
    const r = await perCall(call);
    console.log(
      `  ${name}: CPU ${r.cpu.toFixed(3)} ms per call (main thread ${r.main.toFixed(3)} ms), ${((n / r.wallMs) * 1000).toFixed(0)} calls/s`,
    );
    figures.push({
      name: `${name}, CPU per call (every thread)`,
      value: r.cpu,
      unit: 'ms',
      baseline: { name: 'a timer turn', value: idle.cpu },
      goal: 'informational',
      pass: true,
    });
  }
  await dynamo.close();
  printFigures('store call cost (embedded DynamoDB)', figures);
}

runMain(main);
