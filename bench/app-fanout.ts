/**
 * GitHub App fan-out at installation scale: one App delivery (issues.opened) that matches
 * 1,000 subscriptions over 100 connections of one installation (10 each, as many users of
 * one organization subscribing their agents to the same repository), answered by the
 * in-process intake, beside the same delivery matching one subscription of another
 * installation, in alternating rounds of the same run. Then one wide delivery's events are
 * dispatched to a fake agent runtime: each of the 1,000 agents must get it once.
 * Goals: the wide delivery answered 202 well within the code host's 10 s (slowest < 2 s),
 * every subscription reached once per delivery, every agent once.
 *   npx tsx bench/app-fanout.ts        (BENCH_N=10 deliveries per round, BENCH_ROUNDS=3)
 */
import { routes as intakeRoutes } from '../functions/webhook-intake/routes';
import { providerWebhooks } from '../shared/wiring/provider-intake';
import { createRouter } from '../shared/http/router';
import type { AppContext } from '../shared/ports/app-context';
import { appEnv, appShot, storeAppConnection, storeAppSubscription } from '../test/helpers/app-webhook';
import { consumerPass } from '../test/helpers/consumer-pass';
import { stopTestDynamo } from '../test/helpers/dynamo';
import { FakeAgentRuntime } from '../test/helpers/fake-agent-runtime';
import { examplePayload } from '../test/helpers/signed-delivery';
import { testContext, type TestContext } from '../test/helpers/test-context';
import { envNumber, median, percentile, printFigures, runMain } from './lib/report';

const n = envNumber('BENCH_N', 10);
const rounds = envNumber('BENCH_ROUNDS', 3);
const connections = 100;
const perConnection = 10;
const repo = 'Codertocat/Hello-World';
const wideInstallation = 101;
const narrowInstallation = 102;

function caller(ctx: AppContext) {
  const router = createRouter(intakeRoutes(ctx, providerWebhooks), { platformApiKey: ctx.platformApiKey });
  return async (installationId: number, tag: string) => {
    const payload = examplePayload('issues', 'opened') as Record<string, any>;
    payload.issue.node_id = `I_${tag}`;
    const shot = appShot('issues', payload, { installationId });
    const t0 = performance.now();
    const res = await router({ method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body });
    const ms = performance.now() - t0;
    return { ms, status: res.status, accepted: (JSON.parse(String(res.body)) as { accepted?: number }).accepted ?? 0 };
  };
}

async function seed(t: TestContext): Promise<void> {
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      const connection = await storeAppConnection(t.ctx, { installationId: wideInstallation, account: 'Codertocat', login: `user-${c}` });
      for (let s = 0; s < perConnection; s++) await storeAppSubscription(t.ctx, connection, 'github.new_issue', repo, `agent-${c}-${s}`);
    }),
  );
  const narrow = await storeAppConnection(t.ctx, { installationId: narrowInstallation, account: 'Codertocat', login: 'solo' });
  await storeAppSubscription(t.ctx, narrow, 'github.new_issue', repo, 'agent-solo');
  console.log(`  seeded ${connections * perConnection + 1} subscriptions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  console.log(
    `App fan-out: one delivery matching ${connections * perConnection} subscriptions over ${connections} connections of one installation vs one matching 1, ${rounds} rounds x ${n} deliveries, one at a time, in-process intake`,
  );
  const agent = await FakeAgentRuntime.start();
  const t = await testContext({ ...appEnv, AGENT_RUNTIME_URL: agent.url });
  t.ctx.clock = { now: () => Date.now() };
  await seed(t);
  const call = caller(t.ctx);
  let seq = 0;
  // Warm up (JIT, table files).
  for (let i = 0; i < 3; i++) {
    await call(wideInstallation, `warm-${seq++}`);
    await call(narrowInstallation, `warm-${seq++}`);
  }
  await drainQueue(t);
  const ms = { wide: [] as number[], narrow: [] as number[] };
  let wrong = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [name, installation, expected] of [
      ['wide', wideInstallation, connections * perConnection],
      ['narrow', narrowInstallation, 1],
    ] as const) {
      for (let i = 0; i < n; i++) {
        const answer = await call(installation, `${name}-${seq++}`);
        if (answer.status !== 202 || answer.accepted !== expected) wrong++;
        ms[name].push(answer.ms);
      }
      await drainQueue(t);
    }
  }
  // One wide delivery through dispatch: every agent gets it once.
  await call(wideInstallation, `dispatched-${seq++}`);
  const before = agent.events().length;
  for (let pass = 0; pass < 1000; pass++) if ((await consumerPass(t.ctx, t.queues.queue)).received === 0) break;
  const delivered = agent.events().slice(before);
  const perAgent = new Map<string, number>();
  for (const e of delivered) perAgent.set(String(e.agentId), (perAgent.get(String(e.agentId)) ?? 0) + 1);
  const agentsOnce = [...perAgent.values()].filter((v) => v === 1).length;
  console.log(`  wide ms: ${ms.wide.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  narrow ms: ${ms.narrow.map((x) => x.toFixed(1)).join(', ')}`);
  printFigures('GitHub App fan-out (ms to answer one delivery)', [
    {
      name: `median, ${connections * perConnection} subscriptions over ${connections} connections`,
      value: median(ms.wide),
      unit: 'ms',
      baseline: { name: 'matching 1 subscription', value: median(ms.narrow) },
      goal: 'answered well within 10 s',
      pass: median(ms.wide) < 2000,
    },
    {
      name: 'slowest wide delivery',
      value: percentile(ms.wide, 100),
      unit: 'ms',
      goal: '< 2000 (10 s is the limit)',
      pass: percentile(ms.wide, 100) < 2000,
    },
    { name: 'deliveries not answered 202 with every subscription', value: wrong, unit: '', goal: '0', pass: wrong === 0 },
    {
      name: 'agents that got the dispatched delivery exactly once',
      value: agentsOnce,
      unit: `of ${connections * perConnection}`,
      goal: `${connections * perConnection}, none twice`,
      pass: agentsOnce === connections * perConnection && delivered.length === connections * perConnection,
    },
  ]);
  t.close();
  await agent.close();
  await stopTestDynamo();
}

/** Empties the dispatch queue without delivering (the rounds measure the intake only). */
async function drainQueue(t: TestContext): Promise<void> {
  for (;;) {
    const messages = await t.queues.queue.receive(10, 30);
    if (messages.length === 0) return;
    for (const m of messages) await t.queues.queue.delete(m.receiptHandle);
  }
}

runMain(main);
