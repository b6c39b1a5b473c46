import * as z from 'zod';
import type { Store } from '../ports';
import { keys } from '../store/table-design';

/** The redeliveries remembered per hook (`guid@attemptId`, about 60 bytes each): well under an item's 400 KB. */
const maxAsked = 2000;
/** Deliveries kept to look at again (an attempt held them, or the budget ran out before asking). */
const maxPending = 500;

const pendingSchema = z.object({
  guid: z.string(),
  id: z.number(),
  at: z.number(),
  event: z.string().optional(),
  /** The App's webhook: the installation the delivery was for, which its claim is kept under. */
  installationId: z.number().optional(),
});
export type PendingDelivery = z.output<typeof pendingSchema>;

const walkSchema = z.object({
  /** Where the walk resumes (the `Link` header's cursor); none: from the newest page. */
  cursor: z.string().optional(),
  /** Deliveries older than this (epoch ms) were covered by an earlier walk. */
  stopBefore: z.number(),
  /** When the walk started: the next walk reaches back to here, less the overlap. */
  startedAt: z.number(),
});
export type Walk = z.output<typeof walkSchema>;

/**
 * The sweep's row per hook. Rows written before the sweep walked pages have only `asked`
 * (entries may be bare GUIDs, which stand for every attempt of that GUID) and
 * `lastSweepAt`: such a row starts with a walk over the whole window.
 */
const stateSchema = z.object({
  asked: z.array(z.string()).catch([]),
  lastWalkStartedAt: z.number().optional().catch(undefined),
  walk: walkSchema.optional().catch(undefined),
  pending: z.array(pendingSchema).catch([]),
});

export interface SweepState {
  asked: AskLog;
  /** Start of the last walk that reached its end (epoch ms). */
  lastWalkStartedAt?: number;
  walk?: Walk;
  pending: PendingDelivery[];
}

/** The redeliveries asked for, by GUID: never the same attempt twice, at most `max` per GUID. */
export class AskLog {
  private readonly byGuid = new Map<string, number[]>();
  private readonly order: string[] = [];

  constructor(entries: readonly string[]) {
    for (const e of entries) {
      const at = e.lastIndexOf('@');
      this.add(at < 0 ? e : e.slice(0, at), at < 0 ? Number.POSITIVE_INFINITY : Number(e.slice(at + 1)));
    }
  }

  add(guid: string, attemptId: number): void {
    const ids = this.byGuid.get(guid) ?? [];
    ids.push(attemptId);
    this.byGuid.set(guid, ids);
    this.order.push(Number.isFinite(attemptId) ? `${guid}@${attemptId}` : guid);
  }

  /** How many redeliveries of `guid` were asked for. */
  count(guid: string): number {
    return this.byGuid.get(guid)?.length ?? 0;
  }

  /**
   * True when a redelivery of this attempt, or of a later one of its GUID, was asked for:
   * its outcome is a newer attempt, which is the one to judge.
   */
  covers(guid: string, attemptId: number): boolean {
    return (this.byGuid.get(guid) ?? []).some((id) => id >= attemptId);
  }

  entries(): string[] {
    return this.order.slice(-maxAsked);
  }
}

export async function loadSweepState(store: Store, endpointId: string): Promise<SweepState> {
  const row = await store.get(keys.sweepCursor(endpointId));
  const parsed = stateSchema.safeParse(row ?? {});
  const s = parsed.success ? parsed.data : { asked: [], pending: [] };
  return {
    asked: new AskLog(s.asked),
    pending: s.pending,
    ...(s.lastWalkStartedAt !== undefined ? { lastWalkStartedAt: s.lastWalkStartedAt } : {}),
    ...(s.walk ? { walk: s.walk } : {}),
  };
}

export async function saveSweepState(store: Store, endpointId: string, state: SweepState, nowMs: number): Promise<void> {
  await store.put({
    ...keys.sweepCursor(endpointId),
    asked: state.asked.entries(),
    pending: state.pending.slice(-maxPending),
    ...(state.lastWalkStartedAt !== undefined ? { lastWalkStartedAt: state.lastWalkStartedAt } : {}),
    ...(state.walk ? { walk: withoutUndefined(state.walk) } : {}),
    lastSweepAt: new Date(nowMs).toISOString(),
  });
}

/** The store keeps no undefined attribute. */
function withoutUndefined(walk: Walk): Walk {
  return walk.cursor === undefined ? { stopBefore: walk.stopBefore, startedAt: walk.startedAt } : walk;
}
