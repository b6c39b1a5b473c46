/**
 * The pipeline as users run it: the product in its own process as `npm start` runs it
 * (`tsx local/main.ts`: embedded DynamoDB, file queue, the dispatch consumer delivering, INFO
 * logs written to stdout), a tenant made over the platform API (token connection, then a
 * `github.new_issue` subscription whose hook the product creates at a fake code host), and a
 * loopback agent runtime here counting the events by id. Against the durable floor, also in
 * its own process (bench/lib/floor-process.ts: HMAC verify + JSON.parse + one conditional
 * PutItem into an embedded DynamoDB of its own).
 * Both are warmed, then measured in alternating rounds of BENCH_N signed deliveries from
 * BENCH_CONCURRENCY clients (closed loop). A product round ends when its last event reached
 * the agent runtime, so its rate is the whole pipeline's (intake, queue, consumer, POST),
 * not only the intake's; delivery time = receipt at the agent runtime - send of the delivery.
 * Goals: pipeline >= 0.5x the durable floor; delivery p99 < 1 s; every event exactly once.
 *   npx tsx bench/pipeline-as-run.ts   (BENCH_N=600, BENCH_ROUNDS=3, BENCH_CONCURRENCY=16)
 *   BENCH_PROFILE_DIR=/tmp/prof ...    writes a .cpuprofile of each child at exit
 *                                      (read it with bench/lib/cpu-profile.ts)
 */
import { FakeGitHub } from '../test/helpers/fake-github-server';
import { subscribeOverApi } from '../test/helpers/runtime-support';
import { issueOpenedBody, signedShot, type Shot } from '../test/helpers/seed';
import { startFloorProcess } from './lib/floor-process';
import { closedLoop, statusText, throughput, type LoadResult } from './lib/load';
import { startProductProcess } from './lib/product-process';
import { cpuDuring } from './lib/process-cpu';
import { ReceiptCounter } from './lib/receipts';
import { envNumber, median, percentile, printFigures, runMain } from './lib/report';

const n = envNumber('BENCH_N', 600);
const rounds = envNumber('BENCH_ROUNDS', 3);
const concurrency = envNumber('BENCH_CONCURRENCY', 16);
const warmN = envNumber('BENCH_WARM_N', 300);

async function main(): Promise<void> {
  const receipts = await ReceiptCounter.start();
  const github = await FakeGitHub.start();
  const token = 'ghp_pipelineBenchToken00000000000000000000';
  github.addUser(token, 'Codertocat');
  const logLevel = process.env.BENCH_LOG_LEVEL;
  const product = await startProductProcess({
    GITHUB_API_URL: github.url,
    AGENT_RUNTIME_URL: receipts.url,
    ...(logLevel ? { LOG_LEVEL: logLevel } : {}),
  });
  const sub = await subscribeOverApi(product.url, github, token);
  const tenant = { endpointId: sub.endpointId, secret: sub.hook.config.secret ?? '' };
  const floor = await startFloorProcess(tenant.secret);
  const body = issueOpenedBody();
  const shots = (count: number): Shot[] => Array.from({ length: count }, () => signedShot(tenant, body));
  console.log(
    `pipeline as run: ${rounds} rounds x ${n} deliveries (${body.length} bytes, issues.opened), ${concurrency} concurrent clients; product and floor each in its own process; log level ${logLevel ?? 'default (INFO)'}`,
  );

  const sentAt = new Map<string, number>();
  const accepted = (batch: Shot[]) => (i: number, a: { status: number }, at: number) => {
    if (a.status === 202) sentAt.set(batch[i]!.headers['x-github-delivery']!, at);
  };
  /** One product round: sends `batch`, then waits for its events; the rate is sent / (last receipt - start). */
  const productRound = async (batch: Shot[]): Promise<{ load: LoadResult; pipelineRate: number; drained: boolean }> => {
    const before = receipts.distinct;
    const started = Date.now();
    const load = await closedLoop(product.url, batch, concurrency, accepted(batch));
    const want = before + (load.statuses.get(202) ?? 0);
    const drained = await receipts.waitFor(want, 60_000);
    const last = Math.max(...receipts.receipts.slice(-Math.max(1, want - before)).map((r) => r.at));
    return { load, pipelineRate: (batch.length / Math.max(1, last - started)) * 1000, drained };
  };

  // Warm both (JIT, sockets, tables, the product's caches), then alternate.
  await closedLoop(floor.url, shots(warmN), concurrency);
  const warm = await productRound(shots(warmN));
  const timed: number[] = [];
  sentAt.clear();
  const floorRuns: LoadResult[] = [];
  const productRuns: Array<{ load: LoadResult; pipelineRate: number; drained: boolean }> = [];
  // CPU per delivery of each side (every thread of its process), and of this process (clients, agent runtime) meanwhile.
  const cpu = { floor: [] as number[], product: [] as number[], clientsFloor: [] as number[], clientsProduct: [] as number[] };
  const own = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (let r = 0; r < rounds; r++) {
    let mine = own();
    const f = await cpuDuring(floor.child.pid, () => closedLoop(floor.url, shots(n), concurrency));
    cpu.clientsFloor.push((own() - mine) / n);
    floorRuns.push(f.result);
    if (f.cpuMs !== undefined) cpu.floor.push(f.cpuMs / n);
    const mark = receipts.receipts.length;
    mine = own();
    const p = await cpuDuring(product.child.pid, () => productRound(shots(n)));
    cpu.clientsProduct.push((own() - mine) / n);
    productRuns.push(p.result);
    if (p.cpuMs !== undefined) cpu.product.push(p.cpuMs / n);
    for (const x of receipts.receipts.slice(mark)) {
      const at = sentAt.get(x.deliveryId);
      if (at !== undefined) timed.push(x.at - at);
    }
  }
  const logs = { ...product.logs };
  const code = await product.stop();
  await floor.stop();

  const sent = warmN + n * rounds;
  const acceptedCount = [warm, ...productRuns].reduce((a, r) => a + (r.load.statuses.get(202) ?? 0), 0);
  const drained = warm.drained && productRuns.every((r) => r.drained);
  const floorRate = median(floorRuns.map(throughput));
  const pipelineRate = median(productRuns.map((r) => r.pipelineRate));
  const intakeRate = median(productRuns.map((r) => throughput(r.load)));
  console.log(
    `  product answers: ${productRuns.map((r) => statusText(r.load)).join(' | ')}; floor answers: ${floorRuns.map(statusText).join(' | ')}`,
  );
  console.log(
    `  rounds (deliveries/s): floor ${floorRuns.map((r) => throughput(r).toFixed(0)).join(', ')}; pipeline ${productRuns.map((r) => r.pipelineRate.toFixed(0)).join(', ')}; intake alone ${productRuns.map((r) => throughput(r.load).toFixed(0)).join(', ')}`,
  );
  console.log(
    `  intake answer p50 ${percentile(
      productRuns.flatMap((r) => r.load.latencies),
      50,
    ).toFixed(1)} ms, p99 ${percentile(
      productRuns.flatMap((r) => r.load.latencies),
      99,
    ).toFixed(
      1,
    )} ms; product log: ${logs.lines} lines, ${(logs.bytes / 1024).toFixed(0)} KB (${(logs.lines / sent).toFixed(2)} lines per delivery); exit code ${code}`,
  );
  const cpuFloor = median(cpu.floor);
  const cpuProduct = median(cpu.product);
  if (cpu.product.length > 0)
    console.log(
      `  CPU per delivery, every thread: product ${cpuProduct.toFixed(2)} ms, floor ${cpuFloor.toFixed(2)} ms; this process (clients, agent runtime) ${median(cpu.clientsProduct).toFixed(2)} ms in product rounds, ${median(cpu.clientsFloor).toFixed(2)} ms in floor rounds`,
    );
  console.log(
    `  events received ${receipts.distinct} of ${acceptedCount} accepted (duplicates ${receipts.duplicates})${drained ? '' : ' (drain timed out)'}`,
  );
  printFigures('pipeline as run (npm start, consumer on, default logging)', [
    {
      name: 'pipeline (send to last event received) vs durable floor',
      value: pipelineRate,
      unit: '/s',
      baseline: { name: 'durable floor (own process)', value: floorRate },
      goal: '>= 0.5x',
      pass: pipelineRate >= 0.5 * floorRate,
    },
    {
      name: 'intake answers alone (consumer running) vs durable floor',
      value: intakeRate,
      unit: '/s',
      baseline: { name: 'durable floor (own process)', value: floorRate },
      goal: 'informational',
      pass: true,
    },
    ...(cpu.product.length > 0
      ? [
          {
            name: 'CPU per delivery, every thread of the process',
            value: cpuProduct,
            unit: 'ms',
            baseline: { name: 'durable floor, per request', value: cpuFloor },
            goal: 'informational',
            pass: true,
          },
        ]
      : []),
    {
      name: 'deliveries answered 202',
      value: acceptedCount,
      unit: '',
      baseline: { name: 'sent', value: sent },
      goal: 'all',
      pass: acceptedCount === sent,
    },
    {
      name: 'delivery to agent runtime p99',
      value: percentile(timed, 99),
      unit: 'ms',
      goal: '< 1000 ms',
      pass: percentile(timed, 99) < 1000,
    },
    { name: 'delivery to agent runtime p50', value: percentile(timed, 50), unit: 'ms', goal: 'informational', pass: true },
    {
      name: 'events received exactly once',
      value: receipts.distinct,
      unit: '',
      baseline: { name: 'accepted', value: acceptedCount },
      goal: 'all, no duplicate',
      pass: drained && receipts.distinct === acceptedCount && receipts.duplicates === 0,
    },
  ]);
  await receipts.close();
  await github.close();
}

runMain(main);
