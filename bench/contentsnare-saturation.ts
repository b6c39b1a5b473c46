/**
 * Saturates ONE collection-service account with writes for BENCH_SECONDS (default 60)
 * from several concurrent workers (each its own limiter and client, sharing one embedded
 * DynamoDB table, as Lambda containers share the real one), against a fake service on
 * loopback that enforces the real limit (20 writes per sliding 10 s, 429 beyond).
 *
 *   npx tsx bench/contentsnare-saturation.ts           (BENCH_SECONDS=20 to shorten)
 *
 * Prints `figure vs baseline` lines and PASS/FAIL against the goal: at least 18 writes
 * per 10 s against the limit of 20, with zero 429s and zero failed calls. Exits 0.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../shared/adapters/local/embedded-dynamo';
import { ContentSnareClient } from '../shared/providers/contentsnare/client';
import { ContentSnareRateLimiter } from '../shared/providers/contentsnare/rate-limiter';
import { maxInAnyWindow } from '../shared/providers/contentsnare/sliding-window';
import type { Connection } from '../shared/domain/model';
import { systemClock } from '../shared/ports';
import { startFakeContentSnare } from '../test/helpers/fake-contentsnare';
import { printFigures } from './lib/report';

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const workers = Number(process.env.BENCH_WORKERS ?? 4);
// 24 callers > 20 writes per window: the account stays saturated. Calls still queued at the
// end finish after BENCH_SECONDS (up to about one window more); only writes that arrived
// within the run are counted.
const callersPerWorker = Number(process.env.BENCH_CALLERS ?? 6);
const windowMs = 10_000;
const writeLimit = 20;
const goalPer10s = 18;

const connection: Connection = {
  id: 'conn_bench',
  provider: 'contentsnare',
  accountLogin: 'bench@example.com',
  authMethod: 'oauth',
  status: 'connected',
  repositories: [],
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
};

async function main(): Promise<void> {
  const fake = await startFakeContentSnare({ windowMs, writes: writeLimit, reads: 50 });
  const dynamo = await startEmbeddedDynamo();
  const ddb = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
  await ensureTable(ddb, 'bench');
  const store = new DynamoStore('bench', ddb, systemClock);

  console.log(
    `contentsnare saturation: ${workers} workers x ${callersPerWorker} callers, one account, ${seconds} s, limit ${writeLimit} writes / 10 s`,
  );
  const started = Date.now();
  const stopAt = started + seconds * 1000;
  let ok = 0;
  const failures = new Map<string, number>();

  const loops: Promise<void>[] = [];
  for (let w = 0; w < workers; w++) {
    const limiter = new ContentSnareRateLimiter({ store, clock: systemClock, maxWaitMs: 30_000 });
    const client = new ContentSnareClient({
      apiUrl: fake.url,
      connection,
      tokens: { accessToken: async () => 'bench-token' },
      fetch: globalThis.fetch,
      clock: systemClock,
      limiter,
    });
    for (let c = 0; c < callersPerWorker; c++) {
      loops.push(
        (async () => {
          for (let i = 0; Date.now() < stopAt; i++) {
            try {
              await client.request({
                method: 'POST',
                endpoint: 'clients',
                body: { full_name: `W${w}C${c} #${i}`, email: `w${w}c${c}n${i}@example.com` },
              });
              ok++;
            } catch (e) {
              const code = (e as { code?: string }).code ?? 'unknown';
              failures.set(code, (failures.get(code) ?? 0) + 1);
            }
          }
        })(),
      );
    }
  }
  await Promise.all(loops);

  const accepted = fake
    .acceptedTimes({ kind: 'write' })
    .filter((t) => t < stopAt)
    .sort((a, b) => a - b);
  const throttled = fake.count(429);
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  // Steady state: writes after the first window's burst over the time they took. (A plain
  // mean over the run would flatter it: a full burst at t=0 and another just before the end.)
  const first = accepted[0] ?? started;
  const last = accepted.at(-1) ?? started;
  const steady = accepted.length > writeLimit && last > first ? ((accepted.length - writeLimit) / (last - first)) * windowMs : 0;
  const peak = maxInAnyWindow(accepted, windowMs);

  console.log(`successful writes: ${ok} (${accepted.length} accepted within the run)`);
  printFigures('Content Snare saturation: one account, 4 workers', [
    {
      name: 'writes per 10 s (steady state)',
      value: steady,
      unit: '',
      baseline: { name: 'the limit', value: writeLimit },
      goal: `>= ${goalPer10s}`,
      pass: steady >= goalPer10s,
    },
    { name: 'most writes in any sliding 10 s window', value: peak, unit: '', goal: `<= ${writeLimit}`, pass: peak <= writeLimit },
    { name: '429 answers', value: throttled, unit: '', goal: '0', pass: throttled === 0 },
    {
      name: `failed calls${failed ? ` (${[...failures].map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`,
      value: failed,
      unit: '',
      goal: '0',
      pass: failed === 0,
    },
  ]);

  await fake.close();
  ddb.destroy();
  await dynamo.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    // A crash is not a measurement: say so with a failing exit code.
    console.error(e);
    process.exit(1);
  },
);
