import type { Clock, Item, Key, Sleep, Store } from '../ports';
import { claimOnce, doneMark, finishTogether, type HeldClaim, releaseOnce, waitForClaim } from './once-claim';

/**
 * Work done under a once-claim (once-claim.ts), driven in one place: take the claim, run the
 * work, mark it done when the work says so, give it back when the work says so, throws, or
 * the caller's answer is due (`signal`). Callers never take, finish or release by hand, so a
 * path that forgets to give a claim back (and leaves a redelivery to look like a duplicate
 * until the lease lapses) cannot be written.
 */

/** How the work ended: mark the claim done (with rows written in the same call), or give it back. */
export type ClaimEnd<T> = { end: 'finish'; value: T; also: readonly Item[] } | { end: 'release'; value: T };

/** The work is done: its claim is marked done, with `also` written in the same call. */
export const finishWith = <T>(value: T, also: readonly Item[] = []): ClaimEnd<T> => ({ end: 'finish', value, also });
/** The work did not happen (or is to be tried again): its claim is given back for the next attempt. */
export const giveBack = <T>(value: T): ClaimEnd<T> => ({ end: 'release', value });

/** What came of it. Only `ran` ran the work. */
export type ClaimRun<T> =
  /** The work ran; its claim was marked done or given back as it said. */
  | { kind: 'ran'; value: T }
  /** Done before: the row that says so. */
  | { kind: 'done'; item: Item }
  /** Another attempt holds it, until about `leaseEndsAtMs`. */
  | { kind: 'busy'; leaseEndsAtMs: number }
  /**
   * `signal` aborted: the claim was given back at once. Work already started goes on to its own
   * next check of the signal; `late` is its value should it still end (done or given back as it
   * said), undefined when it never started or threw.
   */
  | { kind: 'aborted'; late: Promise<T | undefined> };

export interface ClaimSpec {
  key: Key;
  leaseSeconds: number;
  /** Stored with the claim, its done mark and, with `releaseAttrs`, its released row. */
  attrs?: Record<string, unknown>;
  /** How long the done mark is kept. Absent: a lease, never marked done (a finish gives it back). */
  doneTtlSeconds?: number;
  /** Other rows marked done with this one, with the same attrs and time to live (in the same call). */
  marksWith?: readonly Key[];
  /** Done marks written with the others of the same turn (one BatchWriteItem, once-claim.ts `finishTogether`); alone by default. */
  together?: boolean;
  /** Keep trying while another attempt holds it, for up to `waitMs` (once-claim.ts `waitForClaim`); `signal` ends the wait early. */
  wait?: { waitMs: number; pauseMs: (attempt: number) => number; signal?: AbortSignal };
  /** The caller's answer is due: give the claim back at once, without waiting for the work (see `aborted`). */
  signal?: AbortSignal;
  /** Stored with the released row (who released it). */
  releaseAttrs?: () => Record<string, unknown>;
  /** A done mark that could not be written: reported here and the run still `ran` (the work's effects stand). Without it, the error is passed on and the claim lapses with its lease. */
  onFinishFailed?: (e: unknown) => void;
  /** A give-back that failed (the claim then lapses with its lease); ignored by default. */
  onReleaseFailed?: (e: unknown) => void;
}

/** `sleep` (the injected one, so tests wait in virtual time) is needed only by a spec that waits. */
export type ClaimContext = { store: Store; clock: Clock; sleep?: Sleep };

export async function withClaim<T>(
  ctx: ClaimContext,
  spec: ClaimSpec,
  work: (held: HeldClaim) => Promise<ClaimEnd<T>>,
): Promise<ClaimRun<T>> {
  const taken = spec.wait
    ? await waitForClaim({ ...ctx, sleep: ctx.sleep ?? noSleep }, spec.key, {
        leaseSeconds: spec.leaseSeconds,
        ...(spec.attrs ? { attrs: spec.attrs } : {}),
        waitMs: spec.wait.waitMs,
        pauseMs: spec.wait.pauseMs,
        ...(spec.wait.signal ? { signal: spec.wait.signal } : {}),
      })
    : await claimOnce(ctx.store, ctx.clock, spec.key, spec.leaseSeconds, spec.attrs);
  if (taken.kind === 'done') return { kind: 'done', item: taken.item };
  if (taken.kind === 'busy') return { kind: 'busy', leaseEndsAtMs: taken.leaseEndsAtMs };
  const held: HeldClaim = { key: spec.key, fence: taken.fence };
  let given = false;
  const release = async (): Promise<void> => {
    if (given) return;
    given = true;
    await releaseOnce(ctx.store, ctx.clock, held, spec.releaseAttrs?.() ?? {}).catch((e: unknown) => spec.onReleaseFailed?.(e));
  };
  const { signal } = spec;
  if (signal?.aborted) {
    await release();
    return { kind: 'aborted', late: Promise.resolve(undefined) };
  }
  const running = run(ctx, spec, held, work, release);
  if (!signal) return running;
  const late = running.then(
    (r) => (r.kind === 'ran' ? r.value : undefined),
    () => undefined,
  );
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<ClaimRun<T>>((resolve) => {
    onAbort = () => void release().then(() => resolve({ kind: 'aborted', late }));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([running, stopped]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

const noSleep: Sleep = () => Promise.reject(new Error('withClaim: a claim that waits needs the injected sleep'));

async function run<T>(
  ctx: ClaimContext,
  spec: ClaimSpec,
  held: HeldClaim,
  work: (held: HeldClaim) => Promise<ClaimEnd<T>>,
  release: () => Promise<void>,
): Promise<ClaimRun<T>> {
  let end: ClaimEnd<T>;
  try {
    end = await work(held);
  } catch (e) {
    await release();
    throw e;
  }
  if (end.end === 'release' || spec.doneTtlSeconds === undefined) {
    await release();
    return { kind: 'ran', value: end.value };
  }
  const ttl = spec.doneTtlSeconds;
  const marks = [spec.key, ...(spec.marksWith ?? [])].map((key) => doneMark(ctx.clock, key, ttl, spec.attrs));
  try {
    if (spec.together || end.also.length > 0) await finishTogether(ctx.store, [...marks, ...end.also]);
    else await Promise.all(marks.map((m) => ctx.store.put(m)));
  } catch (e) {
    if (!spec.onFinishFailed) throw e;
    spec.onFinishFailed(e);
  }
  return { kind: 'ran', value: end.value };
}
