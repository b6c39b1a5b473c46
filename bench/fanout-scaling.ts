/**
 * Fan-out scaling: the same delivery (issues.opened, one matching subscription) with 10 and
 * with BENCH_OTHERS (10,000) stored subscriptions on other repositories and endpoints, each
 * in its own table of the same embedded DynamoDB, in alternating rounds. The cost per
 * delivery must not grow with subscriptions that are not the delivery's (one Query on the
 * endpoint's route partition, no Scan). Goal: ratio of costs < 1.2.
 *   npx tsx bench/fanout-scaling.ts        (BENCH_N=300 per round, BENCH_ROUNDS=5)
 */
import { stopTestDynamo } from '../test/helpers/dynamo';
import { testContext } from '../test/helpers/test-context';
import { intakeCaller } from '../test/helpers/intake-caller';
import { pool } from './lib/in-process';
import { envNumber, median, printFigures, runMain } from './lib/report';
import { issueOpenedBody, seedOtherSubscriptions, seedTenant, signedShot } from '../test/helpers/seed';

const n = envNumber('BENCH_N', 300);
const rounds = envNumber('BENCH_ROUNDS', 5);
const others = envNumber('BENCH_OTHERS', 10_000);

async function setup(otherCount: number) {
  const t = await testContext();
  t.ctx.clock = { now: () => Date.now() };
  const tenant = await seedTenant(t.ctx, 1);
  const t0 = performance.now();
  await seedOtherSubscriptions(t.ctx, otherCount);
  console.log(`  seeded ${otherCount} other subscriptions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { t, tenant, call: intakeCaller(t.ctx) };
}

async function main(): Promise<void> {
  console.log(
    `fan-out scaling: 10 vs ${others} subscriptions on other repositories, ${rounds} rounds x ${n} deliveries, 16 concurrent, in-process intake`,
  );
  const small = await setup(10);
  const large = await setup(others);
  const body = issueOpenedBody();
  const shots = (s: typeof small) => Array.from({ length: n }, () => signedShot(s.tenant, body));
  // Warm both (JIT, endpoint cache, table files).
  await pool(shots(small), 16, small.call);
  await pool(shots(large), 16, large.call);
  const cost = { small: [] as number[], large: [] as number[] };
  let refused = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [name, s] of [
      ['small', small],
      ['large', large],
    ] as const) {
      const result = await pool(shots(s), 16, s.call);
      refused += result.statuses.filter((x) => x !== 202).length;
      cost[name].push(result.msPerShot);
    }
  }
  const [a, b] = [median(cost.small), median(cost.large)];
  console.log(
    `  per-round ms/delivery: 10 -> ${cost.small.map((x) => x.toFixed(2)).join(', ')}; ${others} -> ${cost.large.map((x) => x.toFixed(2)).join(', ')}`,
  );
  printFigures('fan-out scaling (ms per delivery, median of rounds)', [
    {
      name: `cost with ${others} other subscriptions`,
      value: b,
      unit: 'ms',
      baseline: { name: 'with 10', value: a },
      goal: 'ratio < 1.2',
      pass: b / a < 1.2,
    },
    { name: 'deliveries not answered 202', value: refused, unit: '', goal: '0', pass: refused === 0 },
  ]);
  small.t.close();
  large.t.close();
  await stopTestDynamo();
}

runMain(main);
