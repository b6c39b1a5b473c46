/**
 * The polling round split into work items, at scale: `sources` poll units over `connections`
 * connections, planned by the real planner (planPollRound) onto a local work queue and read
 * by `workers` in-process workers (pollWorkItems, batches of 10 items, 32 reads in flight
 * each), as the work queue's event source runs them on AWS. The code host is a stand-in poll
 * source that answers each unit "not modified" after `latencyMs` (a conditional GET's 304),
 * so what is measured is the planner, the queue and the workers' scheduling, not a list
 * reader. The previous design (one invocation reading every unit itself, in a fixed order,
 * within the poller's 50 s timeout) is measured in the same run on a sample of the units.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import type { AppContext } from '../../shared/ports/app-context';
import { pollUnits } from '../../shared/polling/poll-once';
import { planPollRound } from '../../shared/polling/poll-plan';
import type { PollSources, PollUnit } from '../../shared/polling/poll-unit';
import { pollWorkItems } from '../../shared/polling/poll-work';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { testContext } from '../../test/helpers/test-context';

export interface SplitShape {
  sources: number;
  connections: number;
  workers: number;
  latencyMs: number;
}

export interface SplitFigures {
  /** Each round: distinct units read, the most reads of one unit, wall time (ms), work items dropped as stale. */
  full: { read: number; maxReads: number; ms: number; stale: number };
  /** Capped rounds (`cap` units each): rounds until every unit was read, and the reads each unit got over them. */
  capped: { cap: number; rounds: number; unreadAfter: number[]; maxReads: number };
  /** The previous design: units one invocation reads a second (measured), and so how many in 50 s. */
  previous: { perSecond: number; in50s: number };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A stand-in provider poll source: `units` planned, each read answered 304 after `latencyMs`, reads counted by key. */
function standInSources(units: PollUnit[], latencyMs: number, reads: Map<string, number>): PollSources {
  return {
    plan: async () => units,
    poll: async (_ctx, _connection, unit) => {
      await sleep(latencyMs);
      reads.set(unit.key, (reads.get(unit.key) ?? 0) + 1);
      return { result: 'not_modified' };
    },
  };
}

export async function measurePollingSplit(shape: SplitShape, log: (line: string) => void): Promise<SplitFigures> {
  const t = await testContext();
  t.ctx.clock = { now: () => Date.now() };
  const repo = new ConnectionRepo(t.ctx.store);
  const createdAt = new Date().toISOString();
  for (let c = 0; c < shape.connections; c += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, shape.connections - c) }, (_, k) =>
        repo.create({
          id: `conn_${String(c + k).padStart(6, '0')}`,
          provider: 'github',
          accountLogin: `user${c + k}`,
          authMethod: 'token',
          status: 'connected',
          repositories: [],
          createdAt,
          updatedAt: createdAt,
        }),
      ),
    );
  }
  const units: PollUnit[] = Array.from({ length: shape.sources }, (_, i) => ({
    provider: 'github',
    connectionId: `conn_${String(i % shape.connections).padStart(6, '0')}`,
    key: `src_${String(i).padStart(7, '0')}`,
    subscriptions: 1,
    spec: {},
  }));
  const reads = new Map<string, number>();
  const github = t.ctx.providers.github;
  const ctx: AppContext = {
    ...t.ctx,
    providers: { ...t.ctx.providers, github: { ...github, polling: { sources: standInSources(units, shape.latencyMs, reads) } } },
  };
  const work = openLocalQueues({
    dir: mkdtempSync(join(tmpdir(), 'bench-poll-work-')),
    name: 'poll-work',
    clock: ctx.clock,
    maxReceives: 3,
  });

  const round = async (cap?: number) => {
    const started = performance.now();
    await planPollRound(ctx, work.queue, cap === undefined ? {} : { maxUnitsPerRound: cap });
    let stale = 0;
    await Promise.all(
      Array.from({ length: shape.workers }, async () => {
        for (;;) {
          const batch = await work.queue.receive(10, 100);
          if (batch.length === 0) return;
          const { report, failedMessageIds } = await pollWorkItems(ctx, batch);
          stale += report.stale;
          for (const m of batch) if (!failedMessageIds.includes(m.messageId)) await work.queue.delete(m.receiptHandle);
        }
      }),
    );
    return { ms: performance.now() - started, stale };
  };

  // The previous design: one invocation reading units itself (32 in flight, 4 per connection), in its fixed order.
  const sample = units.slice(0, Math.min(units.length, 3_200));
  const seqStarted = performance.now();
  await pollUnits(ctx, sample);
  const perSecond = sample.length / ((performance.now() - seqStarted) / 1000);
  const previous = { perSecond, in50s: Math.min(shape.sources, Math.floor(perSecond * 50)) };
  log(`  previous design: ${sample.length} units in one invocation at ${perSecond.toFixed(0)} a second: ${previous.in50s} within 50 s`);
  reads.clear();

  const full = await round();
  const fullFigures = { read: reads.size, maxReads: Math.max(0, ...reads.values()), ms: full.ms, stale: full.stale };
  log(`  one round, planner + ${shape.workers} workers: ${JSON.stringify(fullFigures)}`);
  reads.clear();

  const cap = Math.ceil(shape.sources / 2.5);
  const unreadAfter: number[] = [];
  let rounds = 0;
  while (rounds < 5 && reads.size < shape.sources) {
    const r = await round(cap);
    rounds++;
    unreadAfter.push(shape.sources - reads.size);
    log(
      `  capped round ${rounds} (${cap} units): ${(r.ms / 1000).toFixed(1)} s, ${shape.sources - reads.size} units not read yet, ${r.stale} stale`,
    );
  }
  const capped = { cap, rounds, unreadAfter, maxReads: Math.max(0, ...reads.values()) };
  work.close();
  t.close();
  return { full: fullFigures, capped, previous };
}
