/**
 * AWS calls per delivery, counted through the adapters: DynamoStore's CallCounter (GetItem, BatchGetItem,
 * PutItem, BatchWriteItem, DeleteItem, Query), the queue's sendBatch, secret and blob
 * reads/writes, for deliveries matching 1..10 subscriptions, one delivery at a time (as a
 * Lambda container takes them). Goal in steady state (the endpoint's record, secret and
 * connection cached by the container): 1 conditional claim (the signed body) + 1 Query + 1
 * batched send + 1 BatchWriteItem of the two done marks (body and delivery id) per delivery,
 * nothing else, whatever the number of matching subscriptions. The done marks are what lets
 * a delivery whose attempt died be processed by its redelivery (docs/reliability.md).
 *   npx tsx bench/aws-calls-per-delivery.ts        (BENCH_N=20 deliveries per case)
 */
import { DynamoStore, type CallCounter } from '../shared/adapters/aws/dynamo-store';
import type { SecretStore } from '../shared/ports';
import { CountingQueue } from '../test/helpers/faulty';
import { TestClock, stopTestDynamo, testStore } from '../test/helpers/dynamo';
import { testContext } from '../test/helpers/test-context';
import { intakeCaller } from '../test/helpers/intake-caller';
import { envNumber, printFigures, runMain, type Figure } from './lib/report';
import { issueOpenedBody, seedTenant, signedShot } from '../test/helpers/seed';

const n = envNumber('BENCH_N', 20);

class Calls implements CallCounter {
  readonly by = { get: 0, getAll: 0, put: 0, putAll: 0, delete: 0, query: 0 };
  count(kind: Parameters<CallCounter['count']>[0]): void {
    this.by[kind]++;
  }
}

function countingSecrets(inner: SecretStore, counter: { reads: number }): SecretStore {
  return {
    get: (name, o) => {
      counter.reads++;
      return inner.get(name, o);
    },
    put: (a, b) => inner.put(a, b),
    delete: (a) => inner.delete(a),
  };
}

async function measure(matching: number) {
  const t = await testContext();
  const calls = new Calls();
  const { client, tableName } = await testStore();
  t.ctx.store = new DynamoStore(tableName, client, new TestClock(Date.now()), calls);
  t.ctx.clock = { now: () => Date.now() };
  const tenant = await seedTenant(t.ctx, matching);
  const secretReads = { reads: 0 };
  t.ctx.secrets = countingSecrets(t.ctx.secrets, secretReads);
  const queue = new CountingQueue(t.ctx.queue);
  t.ctx.queue = queue;
  const call = intakeCaller(t.ctx);
  const body = issueOpenedBody();
  const snapshot = () => ({ ...calls.by, send: queue.calls, messages: queue.messages, secrets: secretReads.reads });
  const before = snapshot();
  if ((await call(signedShot(tenant, body))) !== 202) throw new Error('first delivery not accepted');
  const first = snapshot();
  for (let i = 0; i < n; i++) if ((await call(signedShot(tenant, body))) !== 202) throw new Error('delivery not accepted');
  const end = snapshot();
  t.close();
  const per = (a: typeof end, b: typeof end, k: keyof typeof end, count: number) => (a[k] - b[k]) / count;
  const cold = Object.fromEntries(Object.keys(end).map((k) => [k, per(first, before, k as keyof typeof end, 1)]));
  const steady = Object.fromEntries(Object.keys(end).map((k) => [k, per(end, first, k as keyof typeof end, n)])) as Record<
    keyof typeof end,
    number
  >;
  return { cold, steady };
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  console.log(
    `AWS calls per delivery: ${n} deliveries of issues.opened per case, after one delivery that fills the container's endpoint cache`,
  );
  for (let matching = 1; matching <= 10; matching++) {
    const { cold, steady } = await measure(matching);
    const line = (r: Record<string, number>) =>
      `get ${r.get} | batch get ${r.getAll} | conditional put ${r.put} | batch write ${r.putAll} | delete ${r.delete} | query ${r.query} | sendBatch ${r.send} (${r.messages} messages) | secret reads ${r.secrets}`;
    console.log(`  ${matching} matching: first delivery: ${line(cold)}`);
    console.log(`  ${matching} matching: steady state:   ${line(steady)}`);
    const other = steady.get + steady.getAll + steady.delete + steady.secrets;
    const total = steady.put + steady.putAll + steady.query + steady.send + other;
    const pass =
      steady.put === 1 && steady.putAll === 1 && steady.query === 1 && steady.send === 1 && steady.messages === matching && other === 0;
    figures.push({
      name: `${matching} matching: AWS calls per delivery`,
      value: total,
      unit: 'calls',
      baseline: { name: 'goal (1 claim + 1 Query + 1 sendBatch + 1 batch of 2 done marks)', value: 4 },
      goal: `exactly those 4, the send carrying ${matching} messages`,
      pass,
    });
  }
  printFigures('AWS calls per delivery (steady state)', figures);
  await stopTestDynamo();
}

runMain(main);
