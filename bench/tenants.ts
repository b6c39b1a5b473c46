/**
 * Tenants side by side: the real dispatch handler (functions/dispatch/handler.ts, its SDK
 * clients over the wire, each execution a container of its own) against emulated services (DynamoDB on dynalite, SQS on fauxqs
 * with fair queues),
 * its two queues read by pollers standing in for the SQS event source mappings (as many at
 * once as the concurrency model of docs/reliability.md gives for the load; they speak SQS's
 * JSON protocol without the SDK, as the mapping is AWS's work, not the product's). The agent
 * runtime runs in a thread of its own and times each POST's arrival there, as a host of its own
 * would: the bench's thread, busy with the emulated SQS and the pollers, would time it late.
 * The containers run at a lower CPU priority than the emulated services (nice 10,
 * BENCH_CONTAINER_NICE): on AWS the table and the queues are fleets of their own that the noisy
 * tenant's executions cannot slow; here they share two cores with 19 executions.
 * A quiet tenant sends 5 deliveries/s alone, then beside a noisy tenant at 100/s whose agent
 * runtime takes 3 s per event, then beside one whose runtime answers 503 with Retry-After.
 * Prints one line:
 *   tenants: quiet p99 alone A ms, beside a slow tenant B ms, beside a failing tenant C ms; noisy posted twice N; undelivered U
 * (U: the quiet tenant's and the slow tenant's events not at the agent runtime once drained;
 * the failing tenant's are never taken, by design.) Goals: B and C within 1.5x of A, N = 0, U = 0.
 *   npm run bench:tenants        (BENCH_SECONDS=20 per phase, BENCH_NOISY_RATE=100, BENCH_CONTAINER_NICE=10)
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Message, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { dispatchEventSources } from '../infra/integrations-stack';
import { SqsQueue } from '../shared/adapters/aws/sqs-queue';
import { ensureTable } from '../shared/adapters/aws/ensure-table';
import { startEmbeddedDynamo } from '../shared/adapters/local/embedded-dynamo';
import { toQueueMessage } from '../shared/dispatch/event-message';
import { serveFairly } from '../test/aws/harness/fair-queues';
import { LambdaWorker } from '../test/aws/harness/lambda-worker';
import { lambdaMessageAttributes } from '../test/aws/harness/lambda-records';
import { executionsFor } from '../shared/dispatch/lanes';
import type { TriggerEvent } from '../shared/domain/model';
import { AgentRuntimeThread } from './lib/agent-runtime-thread';
import { answerLoopbackQueueUrls } from './lib/loopback-queue-urls';
import { type JsonMessage, SqsJson } from './lib/sqs-json';
import { envNumber, percentile, runMain } from './lib/report';

const seconds = envNumber('BENCH_SECONDS', 20);
const noisyRate = envNumber('BENCH_NOISY_RATE', 100);
const quietRate = 5;
/**
 * The containers' nice value. The emulated services (DynamoDB, SQS, the agent runtime) share the
 * machine's cores with the containers; on AWS they are fleets of their own, which the noisy
 * tenant's containers cannot slow. At a lower priority, the containers take what the services
 * leave, and among themselves share it evenly. 0 runs everything alike.
 */
const containerNice = envNumber('BENCH_CONTAINER_NICE', 10);
const slowAnswerMs = 3_000;
/** The stack's batch sizes for the two lanes. */
const mainBatch = dispatchEventSources.main(2).batchSize ?? 10;
const slowBatch = dispatchEventSources.slow(2).batchSize;
const batchWindowMs = 1_000;
/** After each phase's load, how long its events may take to arrive. */
const drainMs = 20_000;
const region = 'us-east-1';

/**
 * Executions at once on each lane, from the model (docs/reliability.md, "Throughput"): the main
 * lane for every tenant at the slow one's answer time (it takes the slow tenant's first events,
 * until their answers show it slow), the slow lane for the slow tenant.
 */
const mainPollers = executionsFor(quietRate + noisyRate, slowAnswerMs / 1000, mainBatch);
const slowPollers = executionsFor(noisyRate, slowAnswerMs / 1000, slowBatch);

function triggerEvent(tenant: string, n: number): TriggerEvent {
  return {
    id: `evt_${tenant}_${n}_${randomUUID().slice(0, 8)}`,
    trigger: 'github.new_issue',
    subscriptionId: `sub_${tenant}`,
    agentId: `agent-${tenant}`,
    connectionId: `conn_${tenant}`,
    deliveryId: randomUUID(),
    occurredAt: new Date().toISOString(),
    event: { issue: { number: n, title: `issue ${n}` }, repository: { full_name: `${tenant}/repo` } },
  };
}

async function main(): Promise<void> {
  // The handler's log lines and EMF metrics go to stdout, as on Lambda: the bench prints its one line and nothing else.
  const print = process.stdout.write.bind(process.stdout);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  // The queues are fair, as SQS makes a standard queue whose messages carry a group.
  await serveFairly();
  await answerLoopbackQueueUrls();
  const [dynamo, fauxqs] = await Promise.all([startEmbeddedDynamo(), startFauxqs({ port: 0, logger: false })]);
  const dlq = fauxqs.createQueue('tenants-dlq', { region });
  const redrive = JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '8' });
  const emulated = new Map(
    ['tenants-main', 'tenants-slow'].map((name) => [
      name,
      fauxqs.createQueue(name, { region, attributes: { VisibilityTimeout: '180', RedrivePolicy: redrive } }).queueUrl,
    ]),
  );
  emulated.set('tenants-dlq', dlq.queueUrl);
  const queueUrl = (name: string) => `${fauxqs.address}${new URL(emulated.get(name) ?? '').pathname}`;
  const sqsEndpoint = fauxqs.address;
  const runtime = await AgentRuntimeThread.start({ slowAnswerMs, failingRetryAfterSeconds: 30 });
  const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  // Each execution is a container of its own (a worker thread with the function's environment, as the AWS-mode suite runs them).
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: sqsEndpoint,
    TABLE_NAME: 'tenants-bench',
    QUEUE_URL: queueUrl('tenants-main'),
    SLOW_QUEUE_URL: queueUrl('tenants-slow'),
    DEAD_LETTER_QUEUE_URL: queueUrl('tenants-dlq'),
    AGENT_RUNTIME_URL: runtime.url,
    DISPATCH_SIGNING_SECRET: 'tenants-bench-signing-secret-0123456789',
    PLATFORM_API_KEY: 'tenants-bench-platform-key-0123456789',
    LOG_LEVEL: 'SILENT',
  };
  await ensureTable(new DynamoDBClient({ region, endpoint: dynamo.endpoint, credentials }), 'tenants-bench');
  const containers = (n: number) => Array.from({ length: n }, () => new LambdaWorker('dispatch', 'dispatch', env, 60_000, containerNice));
  const mainContainers = containers(mainPollers);
  const slowContainers = containers(slowPollers);
  await Promise.all([...mainContainers, ...slowContainers].map((c) => c.start()));
  const producer = new SqsQueue(new SQSClient({ region, endpoint: sqsEndpoint, credentials }), queueUrl('tenants-main'));
  const mapping = new SqsJson(sqsEndpoint);

  let stopped = false;
  /** When a poller first received each event (by event id): the quiet tenant's wait split into queue and dispatch. */
  const firstReceived = new Map<string, number>();
  /** How many times each event was received, by lane (a quiet event on the slow lane, or received twice, is a finding). */
  const receives = new Map<string, { main: number; slow: number }>();
  /** One event source mapping poller: receive a batch, invoke the handler, delete what it did not report failed. */
  async function poll(name: string, batchSize: number, container: LambdaWorker): Promise<void> {
    const url = queueUrl(name);
    while (!stopped) {
      // As the event source mapping: gather up to the batch size for at most its batching window (1 s).
      const messages: JsonMessage[] = [];
      let firstAt = 0;
      while (!stopped && messages.length < batchSize && (firstAt === 0 || Date.now() - firstAt < batchWindowMs)) {
        const got = await mapping.receive(url, Math.min(10, batchSize - messages.length), messages.length === 0 ? 1 : 0);
        messages.push(...got);
        if (messages.length > 0 && firstAt === 0) firstAt = Date.now();
        if (got.length === 0 && messages.length > 0) await new Promise((r) => setTimeout(r, 100));
      }
      if (messages.length === 0) continue;
      const receivedAt = Date.now();
      for (const m of messages) {
        const id = /"id":"([^"]+)"/.exec(m.Body ?? '')?.[1];
        if (!id) continue;
        if (!firstReceived.has(id)) firstReceived.set(id, receivedAt);
        const seen = receives.get(id) ?? { main: 0, slow: 0 };
        seen[name === 'tenants-slow' ? 'slow' : 'main']++;
        receives.set(id, seen);
      }
      const event = {
        Records: messages.map((m) => ({
          messageId: m.MessageId ?? '',
          receiptHandle: m.ReceiptHandle ?? '',
          body: m.Body ?? '',
          attributes: {
            ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
            SentTimestamp: m.Attributes?.SentTimestamp ?? '0',
            ...(m.Attributes?.MessageGroupId ? { MessageGroupId: m.Attributes.MessageGroupId } : {}),
          },
          messageAttributes: lambdaMessageAttributes(m.MessageAttributes as Message['MessageAttributes']),
          eventSourceARN: `arn:aws:sqs:${region}:000000000000:${name}`,
        })),
      } as unknown as SQSEvent;
      const outcome = await container.invoke(event);
      // A container that failed as a whole leaves the batch to its visibility, as Lambda does.
      if (!outcome.ok) continue;
      const failed = new Set((outcome.result as SQSBatchResponse).batchItemFailures.map((f) => f.itemIdentifier));
      const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
      for (let i = 0; i < done.length; i += 10) {
        await mapping.deleteBatch(
          url,
          done.slice(i, i + 10).map((m) => m.ReceiptHandle ?? ''),
        );
      }
    }
  }
  const pollers = [
    ...mainContainers.map((c) => poll('tenants-main', mainBatch, c)),
    ...slowContainers.map((c) => poll('tenants-slow', slowBatch, c)),
  ];

  /** Sends `rate` events a second of each tenant for the phase's seconds; answers the events sent, by tenant. */
  async function load(tenants: Record<string, number>, forSeconds = seconds): Promise<Map<string, { id: string; sentAt: number }[]>> {
    const sent = new Map<string, { id: string; sentAt: number }[]>(Object.keys(tenants).map((t) => [t, []]));
    const start = Date.now();
    for (let tick = 0; tick < forSeconds * 10; tick++) {
      const messages = [];
      for (const [tenant, rate] of Object.entries(tenants)) {
        const list = sent.get(tenant) ?? [];
        // Events due by this tenth of a second, spread evenly.
        const due = Math.floor(((tick + 1) * rate) / 10) - list.length;
        for (let i = 0; i < due; i++) {
          const e = triggerEvent(tenant, list.length);
          list.push({ id: e.id, sentAt: Date.now() });
          messages.push(await toQueueMessage({ blobs: undefined as never }, e));
        }
      }
      if (messages.length > 0) await producer.sendBatch(messages);
      const next = start + (tick + 1) * 100;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    return sent;
  }

  const progress = (what: string) => {
    if (process.env.BENCH_VERBOSE) process.stderr.write(`${new Date().toISOString()} ${what}: ${runtime.arrivals.size} arrived\n`);
  };
  const drained = async (ids: readonly string[]) => {
    progress('drain');
    const until = Date.now() + drainMs;
    while (Date.now() < until && ids.some((id) => !runtime.arrivals.has(id))) await new Promise((r) => setTimeout(r, 250));
  };
  const latencies = (events: readonly { id: string; sentAt: number }[]) =>
    events.flatMap((e) => {
      const a = runtime.arrivals.get(e.id);
      return a ? [a.first - e.sentAt] : [];
    });

  // The bench's own thread runs the emulated SQS and the pollers: its event-loop delay is time the handler does not spend.
  const lag = monitorEventLoopDelay({ resolution: 20 });
  lag.enable();
  const lags: string[] = [];
  const lagOf = (phase: string) => {
    lags.push(
      `${phase}: bench thread event-loop delay p50 ${Math.round(lag.percentile(50) / 1e6)} p99 ${Math.round(lag.percentile(99) / 1e6)} ms`,
    );
    lag.reset();
  };
  // Warm: the handler's first invocations build its context and connections (a cold start is not the tenants' doing).
  const warm = await load({ warm: quietRate }, 2);
  await drained((warm.get('warm') ?? []).map((e) => e.id));
  runtime.behave('agent-slow', 'slow');
  runtime.behave('agent-failing', 'failing');
  lag.reset();
  const alone = await load({ quiet: quietRate });
  await drained((alone.get('quiet') ?? []).map((e) => e.id));
  lagOf('alone');
  const besideSlow = await load({ quiet: quietRate, slow: noisyRate });
  await drained([...(besideSlow.get('quiet') ?? []), ...(besideSlow.get('slow') ?? [])].map((e) => e.id));
  lagOf('beside slow');
  const besideFailing = await load({ quiet: quietRate, failing: noisyRate });
  await drained((besideFailing.get('quiet') ?? []).map((e) => e.id));
  lagOf('beside failing');
  stopped = true;

  const quietOf = (m: Map<string, { id: string; sentAt: number }[]>) => m.get('quiet') ?? [];
  const counted = [...quietOf(alone), ...quietOf(besideSlow), ...quietOf(besideFailing), ...(besideSlow.get('slow') ?? [])];
  const undelivered = counted.filter((e) => !runtime.arrivals.has(e.id)).length;
  const postedTwice = (besideSlow.get('slow') ?? []).filter((e) => (runtime.arrivals.get(e.id)?.count ?? 0) > 1).length;
  const p99 = (events: readonly { id: string; sentAt: number }[]) => Math.round(percentile(latencies(events), 99));
  if (process.env.BENCH_VERBOSE) {
    // Where the quiet tenant's time goes: waiting in the queue (sent -> first received) and in dispatch (received -> at the runtime).
    const split = (events: readonly { id: string; sentAt: number }[]) => {
      const inQueue = events.flatMap((e) => (firstReceived.has(e.id) ? [(firstReceived.get(e.id) ?? 0) - e.sentAt] : []));
      const inDispatch = events.flatMap((e) => {
        const at = runtime.arrivals.get(e.id)?.first;
        const got = firstReceived.get(e.id);
        return at !== undefined && got !== undefined ? [at - got] : [];
      });
      const onSlow = events.filter((e) => (receives.get(e.id)?.slow ?? 0) > 0).length;
      const again = events.filter((e) => (receives.get(e.id)?.main ?? 0) > 1).length;
      return `on the slow lane ${onSlow}, received twice on the main lane ${again}; queue p50 ${Math.round(percentile(inQueue, 50))} p99 ${Math.round(percentile(inQueue, 99))} ms, dispatch p50 ${Math.round(percentile(inDispatch, 50))} p99 ${Math.round(percentile(inDispatch, 99))} ms`;
    };
    // The phase's first seconds, while each execution meets the noisy tenant for the first time, against the rest.
    const settled = (events: readonly { id: string; sentAt: number }[]) => {
      const from = (events[0]?.sentAt ?? 0) + 5_000;
      const early = events.filter((e) => e.sentAt < from);
      const late = events.filter((e) => e.sentAt >= from);
      return `first 5 s p99 ${p99(early)} ms (${early.length} events), after p99 ${p99(late)} ms (${late.length} events)`;
    };
    process.stderr.write(
      `quiet alone: ${split(quietOf(alone))}; ${settled(quietOf(alone))}\nquiet beside slow: ${split(quietOf(besideSlow))}; ${settled(quietOf(besideSlow))}\nquiet beside failing: ${split(quietOf(besideFailing))}; ${settled(quietOf(besideFailing))}\n${lags.join('\n')}\n`,
    );
  }
  print(
    `tenants: quiet p99 alone ${p99(quietOf(alone))} ms, beside a slow tenant ${p99(quietOf(besideSlow))} ms, beside a failing tenant ${p99(quietOf(besideFailing))} ms; noisy posted twice ${postedTwice}; undelivered ${undelivered}\n`,
  );
  await Promise.race([Promise.allSettled(pollers), new Promise((r) => setTimeout(r, 3_000))]);
  await runtime.close();
  await Promise.allSettled([...mainContainers, ...slowContainers].map((c) => c.close()));
  await Promise.allSettled([fauxqs.stop(), dynamo.close()]);
}

runMain(main);
