import { createHash } from 'node:crypto';
import * as z from 'zod';
import { ConditionFailedError } from '../domain/errors';
import type { AppContext } from '../ports/app-context';
import { keys, ttlIn } from '../store/table-design';
import type { CircuitBoard, PaceVerdict } from './circuit-board';

/**
 * What a main-lane container goes by for an agent whose pace it has not measured itself (fewer
 * answers than agent-pace.ts needs): `slow`, another container found its answers slow;
 * `quick`, another found its first answer quick; `probe`, nobody knows, or what was found is past
 * half its life, and this container took the probe (it posts one event and holds the others
 * for its answer, then tells the others); `elsewhere`, nothing is known and another container is
 * probing it right now. A verdict is measured again before it lapses, by one container, while
 * the others still go by it: an agent's events leave the main lane unposted only at first sight.
 *
 * Why shared: each container measures on its own, and a burst of a slow agent's events reaches
 * every container at once. Measured alone, each would post to it and hold its batch for as long
 * as the agent takes: every execution of the main lane busy at the same moment, and every other
 * tenant's events waiting in the queue behind them. Shared, one container pays for finding out.
 */
export type SharedPace = 'slow' | 'quick' | 'probe' | 'elsewhere';

/**
 * How long a verdict holds. Slow: as long as a container's own measure remembers answers
 * (agent-pace.ts), then one container measures again. Quick: ten minutes, since the containers
 * that post under it measure the agent themselves and tell the others if it turns slow; a
 * verdict is two writes, and a minute's life would cost an agent with an event a minute two
 * writes per delivery.
 */
export const verdictMs = { slow: 60_000, quick: 600_000 } as const;

/** After finding another container's probe, a container asks again after this long (its batches meanwhile go by what it knows). */
export const probeAskAgainMs = 2_000;

/** A container reads the table again after this long, so a slow verdict told by another reaches it well within its life. */
export const readAgainMs = 15_000;

/**
 * How long a probe holds off the other containers: its POST's answer, or the 10 s limit when
 * none comes, and the write of its verdict. A probe whose container died lapses by itself.
 */
export const probeLeaseSeconds = 12;

const verdictSchema = z.object({ slow: z.boolean(), until: z.number() });

/** The rows of an agent are keyed by a hash of its circuit key (an origin and an agent id, of any length). */
function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

/**
 * What a batch goes by for its agents, as far as this container knows without the table
 * (`known`); the agents the table is asked about (`asking`), whose answers come with `asked`;
 * and the slow verdicts this container found itself, being told to the others meanwhile
 * (`told`). Only an agent the table is asked about waits for it: the events of every other
 * agent of the batch go on at once.
 */
export interface Consultation {
  known: ReadonlyMap<string, SharedPace>;
  asking: ReadonlySet<string>;
  asked: Promise<ReadonlyMap<string, SharedPace>>;
  told: Promise<void>;
}

/**
 * Asks, for each circuit key of a batch, what to go by. A key this container has measured
 * enough is its own to judge (and when it judges it slow, the others are told, once a verdict);
 * otherwise the verdict it holds, or the table's, or the probe. A key whose store call fails is
 * left out: it is judged as before, here alone.
 */
export function consultSharedPace(ctx: AppContext, board: CircuitBoard, circuitKeys: Iterable<string>): Consultation {
  const now = ctx.clock.now();
  const known = new Map<string, SharedPace>();
  const asking = new Set<string>();
  const tells: Promise<void>[] = [];
  for (const key of new Set(circuitKeys)) {
    const here = judgedHere(board, key, now);
    if (here === 'ask') asking.add(key);
    else if (here === 'tell') tells.push(tellSharedPace(ctx, board, key, true));
    else if (here) known.set(key, here);
  }
  const asked = Promise.all(
    [...asking].map(async (key): Promise<Array<[string, SharedPace]>> => {
      try {
        return [[key, await askTable(ctx, board, key, now)]];
      } catch (e) {
        ctx.logger.warn("could not read the agent's shared pace; judged here alone", { error: e });
        return [];
      }
    }),
  ).then((answers) => new Map(answers.flat()));
  return { known, asking, asked, told: Promise.all(tells).then(() => undefined) };
}

/** A verdict past half its life is measured again. */
const fresh = (v: PaceVerdict, now: number) => v.until - now > verdictMs[v.slow ? 'slow' : 'quick'] / 2;
const by = (v: PaceVerdict | undefined): SharedPace => (v ? (v.slow ? 'slow' : 'quick') : 'elsewhere');

/**
 * What this container goes by for `key` without the table: a shared pace, or undefined to
 * judge it here alone; `tell` when it judges it slow itself and the others have not been told
 * within the verdict's half-life; `ask` when only the table (or a probe) can say.
 */
function judgedHere(board: CircuitBoard, key: string, now: number): SharedPace | undefined | 'tell' | 'ask' {
  // An agent whose circuit turns attempts away is deferred, whatever its pace.
  if (board.for(key).allowance() !== Number.POSITIVE_INFINITY) return undefined;
  const pace = board.pace(key);
  if (pace.known()) {
    // Told once a verdict's half-life, not once a batch.
    const told = board.verdict(key, false);
    return pace.isSlow() && !(told?.slow && fresh(told, now)) ? 'tell' : undefined;
  }
  const verdict = board.verdict(key);
  if (verdict && fresh(verdict, now)) return by(verdict);
  // Another container took the probe a moment ago: not asked again for each batch.
  if (board.probedElsewhere(key)) return by(verdict);
  return 'ask';
}

/** The table's verdict on `key`, read when none is held here, or the probe for this container when it is missing or past half its life. */
async function askTable(ctx: AppContext, board: CircuitBoard, key: string, now: number): Promise<SharedPace> {
  const hash = keyHash(key);
  let verdict = board.verdict(key);
  if (!verdict) {
    const row = verdictSchema.safeParse(await ctx.store.get(keys.agentPace(hash)));
    if (row.success && row.data.until > now) {
      verdict = row.data;
      board.remember(key, verdict, now + readAgainMs);
      if (fresh(verdict, now)) return by(verdict);
    }
  }
  // None, or one past half its life: one container measures again while the others still go by the old one.
  try {
    await ctx.store.put({ ...keys.agentProbe(hash), at: now, ttl: ttlIn(now, probeLeaseSeconds) }, { ifNotExists: true });
    return 'probe';
  } catch (e) {
    if (!(e instanceof ConditionFailedError)) throw e;
    // Asked again, and the table read again, once the other's probe may have told what it found.
    board.noteProbedElsewhere(key, now + probeAskAgainMs);
    if (verdict) board.remember(key, verdict, now + probeAskAgainMs);
    return by(verdict);
  }
}

/** Tells the other containers what this one found of `key`'s pace, for `verdictMs`; a failed write only keeps them measuring alone. */
export async function tellSharedPace(ctx: AppContext, board: CircuitBoard, key: string, slow: boolean): Promise<void> {
  const now = ctx.clock.now();
  const lifeMs = verdictMs[slow ? 'slow' : 'quick'];
  const verdict = { slow, until: now + lifeMs };
  board.remember(key, verdict, now + readAgainMs);
  await ctx.store
    .put({ ...keys.agentPace(keyHash(key)), ...verdict, ttl: ttlIn(now, lifeMs / 1000) })
    .catch((e: unknown) => ctx.logger.warn("could not tell the agent's pace to the other containers", { slow, error: e }));
  ctx.logger.info(
    slow ? 'agent runtime found slow; the other containers are told' : 'agent runtime found quick; the other containers are told',
    {
      agent: key,
    },
  );
}
