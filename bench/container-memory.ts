/**
 * Memory of warm Lambda containers under a sustained load: the stack as synthesized, its real
 * handlers against the emulated services behind the IAM-checking proxy (test/aws/harness, as
 * `npm run bench:cost`), one repository subscription, signed `issues.opened` deliveries sent
 * by the code host at BENCH_RATE a second for BENCH_SECONDS (25: about what one intake
 * container takes on this machine, invocation after invocation), 15% of the agent runtime's
 * answers 503 (each retried). The webhook intake and the dispatch each run in one container
 * (a worker thread) the whole time, as a warm container takes invocation after invocation;
 * each one's V8 heap (its isolate's) is read every 2 s. Prints, per container, the heap at the
 * half and at the end and the growth over the second half (goal: under 50 MB), beside the
 * growth over the first half of the same run, its first two windows (the warm-up) left out; a
 * heap's size is its lowest reading of the window before (10 s; V8 collects when it will, so
 * one reading is live data plus garbage).
 *   npm run bench:container-memory   (BENCH_RATE=25, BENCH_SECONDS=180, BENCH_FLOOR_SECONDS=10)
 */
import type { Role } from '../test/aws/harness/aws-world';
import { envNumber, type Figure, printFigures, runMain } from './lib/report';
import { startSubscribedWorld } from './lib/subscribed-world';

const rate = envNumber('BENCH_RATE', 25);
const seconds = envNumber('BENCH_SECONDS', 180);
const sampleMs = 2_000;
/** A heap's size at a moment: its lowest reading over this long before (BENCH_FLOOR_SECONDS, 10). */
const floorWindowMs = envNumber('BENCH_FLOOR_SECONDS', 10) * 1000;
const failingShare = 0.15;
const goalMb = 50;
const platformKey = 'bench-memory-platform-key-0123456789abcdef';
const token = 'ghp_benchMemoryToken000000000000000000000';
const repository = 'octocat/memory';
const roles: Role[] = ['webhook-intake', 'dispatch'];

interface Reading {
  at: number;
  usedMb: number;
  totalMb: number;
  externalMb: number;
}

/** The lowest reading of the window that ends at `at`, field by field. */
function floorAt(readings: readonly Reading[], at: number): Reading {
  const window = readings.filter((r) => r.at <= at && r.at > at - floorWindowMs);
  const of = (f: keyof Omit<Reading, 'at'>) => Math.min(...window.map((r) => r[f]));
  return { at, usedMb: of('usedMb'), totalMb: of('totalMb'), externalMb: of('externalMb') };
}

const mb = (n: number) => `${n.toFixed(1)} MB`;

async function main(): Promise<void> {
  // The functions' log lines go to stdout, as on Lambda: the bench prints its figures and nothing else.
  const write = process.stdout.write.bind(process.stdout);
  const print = (line: string) => write(`${line}\n`);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  const { world, runtime, deliver: send, close } = await startSubscribedWorld({ platformKey, token, repository, agents: 1 });
  try {
    let sent = 0;
    let refused = 0;
    const deliver = async () => {
      const i = sent++;
      // One answer of the runtime's per delivery; its retries and the rest are answered 200.
      runtime.answers.push(Math.random() < failingShare ? { status: 503, body: { error: 'busy' } } : { status: 200, body: { ok: true } });
      if ((await send(i)) >= 300) refused++;
    };

    const readings = new Map<Role, Reading[]>(roles.map((r) => [r, []]));
    let loading = true;
    const start = Date.now();
    const sampler = (async () => {
      while (loading) {
        const at = Date.now() - start;
        for (const role of roles) readings.get(role)?.push({ at, ...(await world.fn(role).heap()) });
        await new Promise((r) => setTimeout(r, sampleMs));
      }
    })();
    // The event source mapping, as long as there is load: the dispatch container takes batch after batch.
    const consumer = (async () => {
      while (loading) {
        const { batches } = await world.drainQueues({ skipWaits: true, maxRounds: 1 });
        if (batches === 0) await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // Open loop: each tenth of a second sends what is due by then, without waiting for the answers before.
    const inFlight: Promise<void>[] = [];
    for (let tick = 0; tick < seconds * 10; tick++) {
      const due = Math.floor(((tick + 1) * rate) / 10) - sent;
      for (let i = 0; i < due; i++) inFlight.push(deliver());
      const next = start + (tick + 1) * 100;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    await Promise.all(inFlight);
    const elapsed = (Date.now() - start) / 1000;
    loading = false;
    await Promise.all([sampler, consumer]);
    await world.drainQueues({ skipWaits: true });
    if (world.denials().length > 0) throw new Error(`refused calls: ${world.denials().join('; ')}`);

    const end = seconds * 1000;
    const half = end / 2;
    print(
      `container memory: ${sent} deliveries in ${elapsed.toFixed(0)} s (${(sent / elapsed).toFixed(1)}/s), ${refused} refused, ${runtime.events().length} POSTs at the agent runtime (15% answered 503)`,
    );
    const figures: Figure[] = [];
    for (const role of roles) {
      const list = readings.get(role) ?? [];
      const [warm, mid, last] = [floorAt(list, 2 * floorWindowMs), floorAt(list, half), floorAt(list, end)];
      const total = (r: Reading) => r.totalMb + r.externalMb;
      print(
        `${role}: heap used ${mb(mid.usedMb)} at the half, ${mb(last.usedMb)} at the end; heap and external ${mb(total(mid))} at the half, ${mb(total(last))} at the end`,
      );
      const growth = total(last) - total(mid);
      figures.push({
        name: `${role} container: heap and external growth over the second half`,
        value: growth,
        unit: 'MB',
        baseline: { name: `over the first half after ${(2 * floorWindowMs) / 1000} s`, value: total(mid) - total(warm) },
        goal: `< ${goalMb} MB`,
        pass: growth < goalMb,
      });
    }
    printFigures(`warm containers' memory, ${rate}/s for ${seconds} s`, figures, print);
  } finally {
    await close();
  }
}

runMain(main);
