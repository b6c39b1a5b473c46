/**
 * The cost of a delivery, counted on the wire: the stack as synthesized, its real handlers
 * against the emulated services behind the IAM-checking proxy (test/aws/harness), one
 * repository subscription, `BENCH_N` signed `issues.opened` deliveries sent by the code host
 * to the hook and carried to the agent runtime. Every AWS call the functions make is counted
 * by service and operation, DynamoDB by the request units it used, Lambda by invocations and
 * run time, the logs by their bytes; each count per delivery is printed beside the figure
 * docs/performance.md ("Cost per delivery") models with, and priced per million deliveries.
 *   npm run bench:cost            (BENCH_N=40 deliveries, after 5 that warm the containers;
 *                                  BENCH_MATCHING=3: each delivery matches 3 subscriptions)
 */
import type { AwsWorld } from '../test/aws/harness/aws-world';
import type { AwsCall } from '../test/aws/harness/iam-proxy';
import { awsPrices as p, functionMemoryGb } from './lib/aws-prices';
import { envNumber, runMain } from './lib/report';
import { startSubscribedWorld } from './lib/subscribed-world';

const n = envNumber('BENCH_N', 40);
/** Subscriptions (agents) each delivery matches. */
const matching = envNumber('BENCH_MATCHING', 1);
const warm = 5;
const platformKey = 'bench-cost-platform-key-0123456789abcdef';
const token = 'ghp_benchCostToken00000000000000000000000';
const repository = 'octocat/cost';

/**
 * What docs/performance.md models one delivery with (one matching subscription, warm
 * containers, dispatch batches of up to 50): the counts this bench measured on
 * 2026-11-27 (40 deliveries), rounded. A measured count far from its figure
 * means the model is out of date.
 */
export const modelPerDelivery = {
  apiRequests: 1,
  lambdaInvocations: 1.03,
  lambdaGbSeconds: 0.09,
  sqsRequests: 1.33,
  dynamoWriteUnits: 13,
  dynamoReadUnits: 2.5,
  secretsCalls: 0,
  s3Requests: 0,
  logBytes: 1900,
};

type Counts = typeof modelPerDelivery;

interface Snapshot {
  calls: number;
  usage: Map<string, { invocations: number; ms: number }>;
  logBytes: number;
}

function snapshot(world: AwsWorld): Snapshot {
  const usage = new Map<string, { invocations: number; ms: number }>();
  let logBytes = 0;
  for (const [role, w] of world.functions) {
    usage.set(role, { ...w.usage });
    logBytes += w.logLines.reduce((s, l) => s + Buffer.byteLength(l) + 1, 0);
  }
  return { calls: world.calls.length, usage, logBytes };
}

/** Lambda's own lines per invocation (START, END, REPORT), which the function's log does not show here. */
const platformLogBytesPerInvocation = 350;

function countSince(world: AwsWorld, from: Snapshot): { counts: Counts; byOperation: Map<string, number> } {
  const calls: AwsCall[] = world.calls.slice(from.calls);
  const byOperation = new Map<string, number>();
  for (const c of calls) {
    const key = `${world.roleName(c.role)} ${c.service}:${c.operation}`;
    byOperation.set(key, (byOperation.get(key) ?? 0) + 1);
  }
  let invocations = 0;
  let ms = 0;
  for (const [role, w] of world.functions) {
    const before = from.usage.get(role) ?? { invocations: 0, ms: 0 };
    invocations += w.usage.invocations - before.invocations;
    ms += w.usage.ms - before.ms;
  }
  const of = (service: string) => calls.filter((c) => c.service === service);
  const sqs = of('sqs').reduce((s, c) => s + Math.max(1, Math.ceil((c.bytes ?? 0) / 65536)), 0);
  const dynamo = of('dynamodb');
  const logBytes = snapshot(world).logBytes - from.logBytes + invocations * platformLogBytesPerInvocation;
  return {
    byOperation,
    counts: {
      apiRequests: 0,
      lambdaInvocations: invocations,
      lambdaGbSeconds: (ms / 1000) * functionMemoryGb,
      sqsRequests: sqs,
      dynamoWriteUnits: dynamo.reduce((s, c) => s + (c.units?.write ?? 0), 0),
      dynamoReadUnits: dynamo.reduce((s, c) => s + (c.units?.read ?? 0), 0),
      secretsCalls: of('secretsmanager').length,
      s3Requests: of('s3').length,
      logBytes,
    },
  };
}

/** Dollars per million deliveries for each service, from counts per delivery. */
export function dollarsPerMillion(c: Counts): Record<string, number> {
  const m = 1_000_000;
  return {
    'API Gateway': c.apiRequests * p.httpApiPerMillionRequests,
    Lambda: c.lambdaInvocations * p.lambdaPerMillionRequests + c.lambdaGbSeconds * m * p.lambdaArmPerGbSecond,
    SQS: c.sqsRequests * p.sqsPerMillionRequests,
    DynamoDB: c.dynamoWriteUnits * p.dynamoPerMillionWriteUnits + c.dynamoReadUnits * p.dynamoPerMillionReadUnits,
    'Secrets Manager': (c.secretsCalls * m * p.secretsPerTenThousandCalls) / 10_000,
    S3: (c.s3Requests * m * p.s3PutPerThousand) / 1000,
    'CloudWatch Logs': ((c.logBytes * m) / 1024 ** 3) * p.logsPerGbIngested,
  };
}

async function main(): Promise<void> {
  const { world, runtime, deliver: send, close } = await startSubscribedWorld({ platformKey, token, repository, agents: matching });
  try {
    const deliver = async (i: number) => {
      const status = await send(i);
      if (status >= 300) throw new Error(`delivery ${i} answered ${status}`);
    };
    for (let i = 0; i < warm; i++) await deliver(i);
    await world.drainQueues();
    const before = snapshot(world);
    const received = runtime.events().length;
    for (let i = 0; i < n; i++) await deliver(warm + i);
    await world.drainQueues();
    const events = runtime.events().slice(received);
    const distinct = new Set(events.map((e) => e.id)).size;
    if (distinct !== n * matching) throw new Error(`${distinct} of ${n * matching} trigger events reached the agent runtime`);
    // A POST that outlasts the main lane's 10 s limit on a loaded machine is posted again from the slow lane: counted, and said.
    const again = events.length - distinct;
    if (world.denials().length > 0) throw new Error(`refused calls: ${world.denials().join('; ')}`);
    const { counts, byOperation } = countSince(world, before);
    counts.apiRequests = n;
    const per = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / n])) as Counts;

    console.log(`\n== Cost per delivery, counted on the wire (${n} deliveries, ${matching} matching subscription(s), warm containers)`);
    console.log('calls by function and operation, per delivery:');
    for (const [k, v] of [...byOperation].sort()) console.log(`  ${k.padEnd(52)} ${(v / n).toFixed(2)}`);
    console.log(`\n${'count'.padEnd(20)} ${'measured'.padStart(10)} ${'model'.padStart(10)}`);
    for (const k of Object.keys(modelPerDelivery) as (keyof Counts)[]) {
      console.log(`${k.padEnd(20)} ${per[k].toFixed(3).padStart(10)} ${String(modelPerDelivery[k]).padStart(10)}`);
    }
    const measured = dollarsPerMillion(per);
    const model = dollarsPerMillion(modelPerDelivery);
    console.log(`\n${'$ per 1M deliveries'.padEnd(20)} ${'measured'.padStart(10)} ${'model'.padStart(10)}`);
    for (const k of Object.keys(measured)) {
      console.log(`${k.padEnd(20)} ${(measured[k] ?? 0).toFixed(2).padStart(10)} ${(model[k] ?? 0).toFixed(2).padStart(10)}`);
    }
    const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
    console.log(`${'total'.padEnd(20)} ${total(measured).toFixed(2).padStart(10)} ${total(model).toFixed(2).padStart(10)}`);
    console.log("(Lambda run time is this machine's, through emulators on loopback: an upper bound for a warm container on AWS.)");
    if (again > 0)
      console.log(
        `(${again} events were posted again from the slow lane: the machine answered slower than the 10 s limit; their calls are counted.)`,
      );
  } finally {
    await close();
  }
}

runMain(main);
