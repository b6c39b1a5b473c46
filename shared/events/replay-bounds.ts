import type { Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import type { Clock, Key, Store } from '../ports';
import { keys, ttlIn } from '../store/table-design';
import { versionedUpdate, writeRow } from '../store/versioned-update';

/**
 * How often an event may be replayed, and how often one key may replay (docs/security.md,
 * "Replay is bounded"). Each bound is a sliding window kept in the table, so it holds across
 * every container: the times of the replays admitted within the window, in one small row
 * rewritten under a version check. A replay counts against the event it replays (always the
 * original: a replay of a replay replays the original) and against the key that asked.
 */
export const replayBounds = {
  /** Replays of one event, by anyone. */
  perEvent: { max: 5, windowSeconds: 24 * 3600 },
  /** Replays asked for by one scoped key, whatever the event. */
  perScopedKey: { max: 100, windowSeconds: 3600 },
  /** Replays asked for with the platform key (the console, the platform's back end). */
  perPlatformKey: { max: 1000, windowSeconds: 3600 },
} as const;

interface Bound {
  max: number;
  windowSeconds: number;
}

interface Ledger {
  key: Key;
  bound: Bound;
  /** What a refusal names: `event` or `key`. */
  scope: 'event' | 'key';
}

interface LedgerRow extends Key {
  /** Epoch ms of the replays admitted within the window, oldest first. */
  times: number[];
  version: number;
  ttl: number;
}

type Verdict = { ok: true; row: LedgerRow | undefined; live: number[] } | { ok: false; retryAtMs: number };

function judge(row: LedgerRow | undefined, bound: Bound, nowMs: number): Verdict {
  const since = nowMs - bound.windowSeconds * 1000;
  const live = (row?.times ?? []).filter((t) => typeof t === 'number' && t > since).sort((a, b) => a - b);
  if (live.length < bound.max) return { ok: true, row, live };
  // The next replay is allowed when enough of the window's replays have aged out of it.
  const lapsing = live[live.length - bound.max] as number;
  return { ok: false, retryAtMs: lapsing + bound.windowSeconds * 1000 };
}

function refusal(ledger: Ledger, retryAtMs: number, nowMs: number): AppError {
  const retryAfter = Math.max(1, Math.ceil((retryAtMs - nowMs) / 1000));
  const nextReplayAt = new Date(nowMs + retryAfter * 1000).toISOString();
  const { max, windowSeconds } = ledger.bound;
  const what = ledger.scope === 'event' ? 'This event was replayed' : 'This key asked for';
  const per = windowSeconds % 3600 === 0 ? `${windowSeconds / 3600} h` : `${windowSeconds} s`;
  return new AppError(
    'replay_limited',
    `${what} ${max} replays within ${per}, the most allowed; the next is allowed at ${nextReplayAt} (in ${retryAfter} s)`,
    { limit: ledger.scope, max, windowSeconds, retryAfter, nextReplayAt },
  );
}

async function read(store: Store, ledger: Ledger): Promise<LedgerRow | undefined> {
  return store.get<LedgerRow>(ledger.key, { consistent: true });
}

/** The ledger's row with one more replay admitted at `nowMs` (its version is set by the write). */
function recorded(ledger: Ledger, live: readonly number[], nowMs: number): Omit<LedgerRow, 'version'> {
  return { ...ledger.key, times: [...live, nowMs], ttl: ttlIn(nowMs, ledger.bound.windowSeconds) };
}

/** The ledgers a replay of `originalId` by `caller` counts against. */
export function ledgersOf(caller: Caller, originalId: string): Ledger[] {
  const keyId = caller.kind === 'scoped' ? caller.keyId : 'platform';
  const perKey = caller.kind === 'scoped' ? replayBounds.perScopedKey : replayBounds.perPlatformKey;
  return [
    { key: keys.replaysOfEvent(originalId), bound: replayBounds.perEvent, scope: 'event' },
    { key: keys.replaysOfKey(keyId), bound: perKey, scope: 'key' },
  ];
}

/**
 * Admits one replay of `originalId` by `caller`, or throws `replay_limited` (429) saying when
 * the next is allowed. Both ledgers are read first and nothing is recorded unless both admit;
 * then each is recorded, read again when another replay changed it in between. A replay that
 * loses that race on its second ledger is refused and keeps its count on the first: a bound
 * errs on the side of fewer replays.
 */
export async function admitReplay(deps: { store: Store; clock: Clock }, caller: Caller, originalId: string): Promise<void> {
  const ledgers = ledgersOf(caller, originalId);
  const now = deps.clock.now();
  const rows = await Promise.all(ledgers.map((l) => read(deps.store, l)));
  const refused = ledgers
    .map((l, i) => ({ l, v: judge(rows[i], l.bound, now) }))
    .filter((x): x is { l: Ledger; v: { ok: false; retryAtMs: number } } => !x.v.ok)
    .sort((a, b) => b.v.retryAtMs - a.v.retryAtMs)[0];
  if (refused) throw refusal(refused.l, refused.v.retryAtMs, now);
  for (const [i, ledger] of ledgers.entries()) {
    // The first try judges the row read above; a lost race reads it again.
    let reads = 0;
    await versionedUpdate(
      deps.store,
      () => (reads++ === 0 ? Promise.resolve(rows[i]) : read(deps.store, ledger)),
      (row) => {
        const verdict = judge(row, ledger.bound, now);
        if (!verdict.ok) throw refusal(ledger, verdict.retryAtMs, now);
        return writeRow(recorded(ledger, verdict.live, now), undefined);
      },
      {
        key: ledger.key,
        attempts: 5,
        lostForGood: () => new AppError('unavailable', 'Replays are being asked for too fast to count; try again', { retryAfter: 1 }),
      },
    );
  }
}
