/**
 * Dispatch soak: a steady BENCH_RATE (40) signed deliveries a second for BENCH_SECONDS (180)
 * into the product as `npm start` runs it (`tsx local/main.ts` in its own process: embedded
 * DynamoDB, file queue, the in-process consumer), a `github.new_issue` subscription made over
 * the platform API, and an agent runtime on loopback that misbehaves the way overloaded
 * services do: of its POSTs, 15% answered 503, 2% cut (connection destroyed unanswered), 5%
 * held past the 10 s limit (then cut). The same run with a healthy agent runtime is the baseline.
 * Open loop: deliveries leave on schedule whatever the answers. After the load, up to
 * BENCH_DRAIN_SECONDS (240) for every accepted delivery to reach the agent runtime or the
 * dead-letter queue; past it, only while the event history still schedules a try for one
 * (a run of failed tries backs off for up to ~10 minutes before the last), up to
 * BENCH_DRAIN_MAX_SECONDS (720).
 * Prints, per run: delivery p50/p99 (first acknowledgment at the agent runtime - send of the
 * delivery); where every accepted delivery is at the end (at the agent runtime, in the
 * dead-letter queue as `GET /admin/dlq` answers, still waiting for a try its history
 * schedules, or lost: none of these); events acknowledged twice (2xx on a live connection
 * more than once: must be 0); and the product's memory growth (RSS of the child) over the
 * second half of the load.
 * Goals with the faults: p99 < 2 minutes, every accepted delivery at the agent runtime or in
 * the dead-letter queue, no event acknowledged twice, RSS growth < 50 MB over the second half.
 *   npm run bench:soak                                   (40/s for 180 s, faulty then healthy)
 *   BENCH_MODES=faulty                                   runs only the run with faults
 *   npm run bench:soak -- --seconds 60 [--rate 40]       a shorter run (the options win over BENCH_SECONDS, BENCH_RATE)
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGitHub } from '../test/helpers/fake-github-server';
import { subscribeOverApi } from '../test/helpers/runtime-support';
import { issueOpenedBody, signedShot } from '../test/helpers/seed';
import { keepAliveAgent, post } from './lib/load';
import { account, type Accounting } from './lib/soak-accounting';
import { startProductProcess } from './lib/product-process';
import { envNumber, percentile, printFigures, runMain, type Figure } from './lib/report';

const rate = argNumber('--rate') ?? envNumber('BENCH_RATE', 40);
const seconds = argNumber('--seconds') ?? envNumber('BENCH_SECONDS', 180);
const drainSeconds = envNumber('BENCH_DRAIN_SECONDS', 240);
const drainMaxSeconds = Math.max(drainSeconds, envNumber('BENCH_DRAIN_MAX_SECONDS', 720));
/** Memory growth allowed over the second half of the load. */
const rssGoalMb = 50;
const modes = (process.env.BENCH_MODES ?? 'faulty,healthy').split(',').map((m) => m.trim()) as Mode[];
type Mode = 'faulty' | 'healthy';

/** The fault mix, as shares of the POSTs. */
const faults = { unavailable: 0.15, cut: 0.02, held: 0.05 };
/** How long a held POST is kept before its connection is cut: past the dispatcher's 10 s. */
const heldMs = 12_000;

/** The agent runtime on loopback: acknowledgments by event id, with their times, and the faults it played. */
class SoakRuntime {
  /** Event id -> times it was answered 2xx (on a connection still open). */
  readonly acks = new Map<string, number[]>();
  /** Delivery id -> first acknowledgment time. */
  readonly firstAck = new Map<string, number>();
  readonly played = { ok: 0, unavailable: 0, cut: 0, held: 0 };
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(mode: Mode): Promise<SoakRuntime> {
    let self: SoakRuntime | undefined;
    const held = new Set<NodeJS.Timeout>();
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rt = self!;
        const r = mode === 'healthy' ? 1 : Math.random();
        if (r < faults.unavailable) {
          rt.played.unavailable++;
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"overloaded"}');
          return;
        }
        if (r < faults.unavailable + faults.cut) {
          rt.played.cut++;
          req.socket.destroy();
          return;
        }
        if (r < faults.unavailable + faults.cut + faults.held) {
          rt.played.held++;
          const timer = setTimeout(() => {
            held.delete(timer);
            req.socket.destroy();
          }, heldMs);
          held.add(timer);
          return;
        }
        let e: { id: string; deliveryId: string };
        try {
          e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; deliveryId: string };
        } catch {
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}', () => {
          // Acknowledged only once the answer is on its way on a live connection.
          if (req.socket.destroyed) return;
          const at = Date.now();
          rt.played.ok++;
          rt.acks.set(e.id, [...(rt.acks.get(e.id) ?? []), at]);
          if (!rt.firstAck.has(e.deliveryId)) rt.firstAck.set(e.deliveryId, at);
        });
      });
    });
    server.on('close', () => {
      for (const t of held) clearTimeout(t);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    self = new SoakRuntime(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/trigger-events`);
    return self;
  }

  get ackedTwice(): number {
    return [...this.acks.values()].filter((a) => a.length > 1).length;
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}

/**
 * Resident set size of a process in MB (Linux /proc), or NaN where there is none; `fileMb`:
 * the part mapped from files (the embedded DynamoDB's table files, which LevelDB maps in).
 */
function rssMb(pid: number | undefined): { mb: number; fileMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
    return { mb: kb('VmRSS'), fileMb: kb('RssFile') };
  } catch {
    return { mb: Number.NaN, fileMb: Number.NaN };
  }
}

interface RunResult {
  mode: Mode;
  sent: number;
  accepted: number;
  /** Why each refused delivery was: its status (`HTTP 503`) or the client's error code, with when in the load it was sent. */
  refusals: string[];
  achievedRate: number;
  deliveryMs: number[];
  /** From the intake's 2xx answer to the first acknowledgment. */
  dispatchMs: number[];
  intakeMs: number[];
  /** The machine's 1-minute load average at the end of the run (the machine is shared). */
  load: number;
  /** Where each accepted delivery is at the end. */
  accounting: Accounting;
  /** Accepted deliveries neither at the agent runtime nor in the dead-letter queue at the end. */
  undelivered: number;
  ackedTwice: number;
  rssHalf: number;
  /** Of the RSS growth over the second half, the part mapped from files. */
  rssFileGrowth: number;
  rssEnd: number;
  rssMax: number;
  /**
   * Growth of the floor over the second half: the lowest RSS of its last 10 s less the lowest of
   * its first 10 s. Informational beside the goal's two readings, which a heap's swing moves.
   */
  rssFloorGrowth: number;
  drainSeconds: number;
  played: SoakRuntime['played'];
}

async function run(mode: Mode): Promise<RunResult> {
  const runtime = await SoakRuntime.start(mode);
  const github = await FakeGitHub.start();
  const token = 'ghp_soakBenchToken000000000000000000000000000';
  github.addUser(token, 'Codertocat');
  const product = await startProductProcess({ GITHUB_API_URL: github.url, AGENT_RUNTIME_URL: runtime.url });
  const sub = await subscribeOverApi(product.url, github, token);
  const tenant = { endpointId: sub.endpointId, secret: sub.hook.config.secret ?? '' };
  const body = issueOpenedBody();
  const agent = keepAliveAgent(64);
  const total = Math.round(rate * seconds);
  const sentAt = new Map<string, number>();
  /** When the intake answered 2xx: delivery time from there is the dispatch's own. */
  const acceptedAt = new Map<string, number>();
  const intakeMs: number[] = [];
  const refusals: string[] = [];
  const refuse = (why: string, at: number) => {
    refusals.push(`${why} at ${((at - startedAt) / 1000).toFixed(0)} s after ${((Date.now() - at) / 1000).toFixed(1)} s`);
  };
  let sent = 0;
  const answers = new Set<Promise<void>>();
  const rss: Array<{ at: number; mb: number; fileMb: number }> = [];
  const sampler = setInterval(() => rss.push({ at: performance.now(), ...rssMb(product.child.pid) }), 1000);

  const started = performance.now();
  const startedAt = Date.now();
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    while (sent < due) {
      const shot = signedShot(tenant, body);
      const guid = shot.headers['x-github-delivery']!;
      const at = Date.now();
      const p = post(product.url, shot, agent).then(
        (a) => {
          const now = Date.now();
          intakeMs.push(now - at);
          if (a.status >= 200 && a.status < 300) {
            sentAt.set(guid, at);
            acceptedAt.set(guid, now);
          } else refuse(`HTTP ${a.status}`, at);
        },
        (e: unknown) => refuse((e as { code?: string })?.code ?? String(e), at),
      );
      answers.add(p);
      void p.finally(() => answers.delete(p));
      sent++;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const loadEnded = performance.now();
  const sendSeconds = (loadEnded - started) / 1000;
  await Promise.all(answers);
  // Memory over the second half of the load: from its midpoint to its end.
  const half = started + (loadEnded - started) / 2;
  const inHalf = rss.filter((s) => s.at >= half && s.at <= loadEnded && Number.isFinite(s.mb));
  const rssHalf = inHalf[0]?.mb ?? Number.NaN;
  const rssEnd = inHalf.at(-1)?.mb ?? Number.NaN;
  const rssMax = Math.max(...inHalf.map((s) => s.mb));
  const floor = (from: number, to: number) => Math.min(...inHalf.filter((s) => s.at >= from && s.at <= to).map((s) => s.mb));
  const rssFloorGrowth = floor(loadEnded - 10_000, loadEnded) - floor(half, half + 10_000);
  const rssFileGrowth = (inHalf.at(-1)?.fileMb ?? Number.NaN) - (inHalf[0]?.fileMb ?? Number.NaN);

  const drainStart = performance.now();
  const accounting = await drain(product.url, [...sentAt.keys()], (d) => runtime.firstAck.has(d));
  const drainTook = (performance.now() - drainStart) / 1000;
  clearInterval(sampler);
  const deliveryMs = [...sentAt].flatMap(([guid, at]) => {
    const ack = runtime.firstAck.get(guid);
    return ack === undefined ? [] : [ack - at];
  });
  const dispatchMs = [...acceptedAt].flatMap(([guid, at]) => {
    const ack = runtime.firstAck.get(guid);
    return ack === undefined ? [] : [Math.max(0, ack - at)];
  });
  const result: RunResult = {
    mode,
    intakeMs,
    dispatchMs,
    load: loadavg()[0] ?? Number.NaN,
    sent,
    accepted: sentAt.size,
    refusals,
    achievedRate: sent / sendSeconds,
    deliveryMs,
    accounting,
    undelivered: accounting.waiting + accounting.lost.length,
    ackedTwice: runtime.ackedTwice,
    rssHalf,
    rssFileGrowth,
    rssEnd,
    rssMax,
    rssFloorGrowth,
    drainSeconds: drainTook,
    played: { ...runtime.played },
  };
  agent.destroy();
  await product.stop();
  await runtime.close();
  await github.close();
  return result;
}

/**
 * Waits until every accepted delivery is at the agent runtime or in the dead-letter queue:
 * up to `drainSeconds`, then on only while the history schedules a try for the rest (never
 * past `drainMaxSeconds`). A delivery in neither place with no try due is lost: waiting
 * longer would not bring it back.
 */
async function drain(url: string, accepted: readonly string[], atAgent: (d: string) => boolean): Promise<Accounting> {
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  for (;;) {
    const a = await account(url, accepted, atAgent);
    if (a.waiting === 0) return a;
    const dueIn = a.lastNextTryAt === undefined ? 0 : (a.lastNextTryAt - Date.now()) / 1000;
    if (elapsed() >= drainSeconds && (a.lastNextTryAt === undefined || elapsed() + Math.max(0, dueIn) >= drainMaxSeconds)) return a;
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

function describeRun(r: RunResult): void {
  const p = r.played;
  console.log(
    `  ${r.mode}: sent ${r.sent} (${r.achievedRate.toFixed(1)}/s), accepted ${r.accepted}, refused ${r.refusals.length}${r.refusals.length > 0 ? ` (${r.refusals.join('; ')})` : ''}; agent runtime answered ok ${p.ok}, 503 ${p.unavailable}, cut ${p.cut}, held ${p.held}`,
  );
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `    intake answer p50 ${s(percentile(r.intakeMs, 50))}, p99 ${s(percentile(r.intakeMs, 99))}; accepted -> agent runtime p50 ${s(percentile(r.dispatchMs, 50))}, p99 ${s(percentile(r.dispatchMs, 99))}; machine load average ${r.load.toFixed(1)} (2 cores)`,
  );
  console.log(
    `    delivery p50 ${(percentile(r.deliveryMs, 50) / 1000).toFixed(2)} s, p99 ${(percentile(r.deliveryMs, 99) / 1000).toFixed(2)} s, max ${(Math.max(...r.deliveryMs) / 1000).toFixed(1)} s; acknowledged twice ${r.ackedTwice}; RSS ${r.rssHalf.toFixed(0)} MB at mid-load, ${r.rssEnd.toFixed(0)} MB at the end (max ${r.rssMax.toFixed(0)} MB; of the growth, ${r.rssFileGrowth.toFixed(0)} MB mapped from files; lowest of 10 s ${r.rssFloorGrowth >= 0 ? '+' : ''}${r.rssFloorGrowth.toFixed(0)} MB)`,
  );
  const a = r.accounting;
  const due = a.lastNextTryAt === undefined ? '' : ` (the last due in ${Math.max(0, (a.lastNextTryAt - Date.now()) / 1000).toFixed(0)} s)`;
  console.log(
    `    after a drain of ${r.drainSeconds.toFixed(0)} s, of ${a.accepted} accepted: at the agent runtime ${a.atAgent}, in the dead-letter queue ${a.deadLettered}, waiting for a try ${a.waiting}${due}, lost ${a.lost.length}${a.lost.length > 0 ? ` (${a.lost.slice(0, 5).join(', ')}; their history: ${JSON.stringify(a.lostStatuses)})` : ''}`,
  );
}

async function main(): Promise<void> {
  console.log(
    `dispatch soak: ${rate} deliveries/s for ${seconds} s (open loop) into npm start in a child process; agent runtime faults: ${faults.unavailable * 100}% 503, ${faults.cut * 100}% cut, ${faults.held * 100}% held ${heldMs / 1000} s; runs: ${modes.join(', ')}`,
  );
  const results = new Map<Mode, RunResult>();
  for (const mode of modes) {
    const r = await run(mode);
    results.set(mode, r);
    describeRun(r);
  }
  const faulty = results.get('faulty');
  const healthy = results.get('healthy');
  const baseline = (pick: (r: RunResult) => number, name: string) => (healthy ? { baseline: { name, value: pick(healthy) } } : {});
  const figures: Figure[] = [];
  const subject = faulty ?? healthy!;
  const label = faulty ? 'with the fault mix' : 'healthy agent runtime';
  const p99 = percentile(subject.deliveryMs, 99);
  figures.push(
    {
      name: `achieved send rate (${label})`,
      value: subject.achievedRate,
      unit: '/s',
      goal: `>= 0.95x ${rate}/s`,
      pass: subject.achievedRate >= 0.95 * rate,
    },
    {
      name: `deliveries refused by the intake (${label})`,
      value: subject.refusals.length,
      unit: '',
      goal: '0',
      pass: subject.refusals.length === 0,
    },
    {
      name: `delivery p99 (${label})`,
      value: p99 / 1000,
      unit: 's',
      ...baseline((r) => percentile(r.deliveryMs, 99) / 1000, 'healthy'),
      goal: '< 120 s',
      pass: p99 < 120_000,
    },
    {
      name: `delivery p50 (${label})`,
      value: percentile(subject.deliveryMs, 50) / 1000,
      unit: 's',
      ...baseline((r) => percentile(r.deliveryMs, 50) / 1000, 'healthy'),
      goal: 'informational',
      pass: true,
    },
    {
      name: `accepted -> agent runtime p99, the dispatch alone (${label})`,
      value: percentile(subject.dispatchMs, 99) / 1000,
      unit: 's',
      ...baseline((r) => percentile(r.dispatchMs, 99) / 1000, 'healthy'),
      goal: 'informational',
      pass: true,
    },
    {
      name: `accepted deliveries neither at the agent runtime nor in the dead-letter queue at the end (${label})`,
      value: subject.undelivered,
      unit: '',
      ...baseline((r) => r.undelivered, 'healthy'),
      goal: '0',
      pass: subject.undelivered === 0,
    },
    {
      name: `accepted deliveries lost: nowhere, no try due (${label})`,
      value: subject.accounting.lost.length,
      unit: '',
      ...baseline((r) => r.accounting.lost.length, 'healthy'),
      goal: '0',
      pass: subject.accounting.lost.length === 0,
    },
    {
      name: `accepted deliveries in the dead-letter queue (${label})`,
      value: subject.accounting.deadLettered,
      unit: '',
      ...baseline((r) => r.accounting.deadLettered, 'healthy'),
      goal: 'informational',
      pass: true,
    },
    { name: `events acknowledged twice (${label})`, value: subject.ackedTwice, unit: '', goal: '0', pass: subject.ackedTwice === 0 },
    {
      name: `RSS growth over the second half of the load (${label})`,
      value: subject.rssEnd - subject.rssHalf,
      unit: 'MB',
      ...baseline((r) => r.rssEnd - r.rssHalf, 'healthy'),
      goal: `< ${rssGoalMb} MB`,
      pass: subject.rssEnd - subject.rssHalf < rssGoalMb,
    },
    {
      name: `RSS floor growth over the second half, lowest of its last 10 s less lowest of its first 10 s (${label})`,
      value: subject.rssFloorGrowth,
      unit: 'MB',
      ...baseline((r) => r.rssFloorGrowth, 'healthy'),
      goal: 'informational',
      pass: true,
    },
  );
  if (faulty && healthy) {
    figures.push(
      { name: 'healthy run: undelivered at the end', value: healthy.undelivered, unit: '', goal: '0', pass: healthy.undelivered === 0 },
      {
        name: 'healthy run: RSS growth over the second half of the load',
        value: healthy.rssEnd - healthy.rssHalf,
        unit: 'MB',
        goal: `< ${rssGoalMb} MB`,
        pass: healthy.rssEnd - healthy.rssHalf < rssGoalMb,
      },
      { name: 'healthy run: events acknowledged twice', value: healthy.ackedTwice, unit: '', goal: '0', pass: healthy.ackedTwice === 0 },
    );
  }
  printFigures(`dispatch soak, ${rate}/s for ${seconds} s`, figures);
}

runMain(main);

/** A positive number given as `--name N` on the command line, if any. */
function argNumber(name: string): number | undefined {
  const i = process.argv.indexOf(name);
  const n = i < 0 ? Number.NaN : Number(process.argv[i + 1]);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
