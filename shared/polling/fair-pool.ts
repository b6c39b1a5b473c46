import { present } from '../domain/present';

/**
 * Runs tasks with at most `concurrency` in flight overall and at most `perGroup` of one
 * group (a connection) in flight, taking groups in turn: one token's many sources never fill
 * the pool while another connection waits, and one token never sends a burst that trips the
 * code host's secondary (concurrency) limit. A group can be closed mid-round (`skipGroup`):
 * its tasks not yet started are handed to `onSkipped` instead of being run.
 */
export interface FairPoolOptions {
  concurrency: number;
  perGroup: number;
}

export interface FairPool {
  /** Resolves when every task has run or been skipped. */
  done: Promise<void>;
  skipGroup(group: string): void;
}

export function runFairPool<T>(
  tasks: ReadonlyArray<{ group: string; task: T }>,
  options: FairPoolOptions,
  run: (task: T) => Promise<void>,
  onSkipped: (task: T) => void,
): FairPool {
  const queues = new Map<string, Array<{ group: string; task: T }>>();
  for (const entry of tasks) {
    const q = queues.get(entry.group);
    if (q) q.push(entry);
    else queues.set(entry.group, [entry]);
  }
  const order = [...queues.keys()];
  const inFlight = new Map<string, number>();
  const skipped = new Set<string>();
  let turn = 0;
  let running = 0;
  let settle!: () => void;
  const done = new Promise<void>((r) => (settle = r));

  const drop = (group: string) => {
    for (const t of queues.get(group) ?? []) onSkipped(t.task);
    queues.delete(group);
  };
  /** The next task of the next group (round robin) that has room, or undefined. */
  const next = (): { group: string; task: T } | undefined => {
    for (let i = 0; i < order.length; i++) {
      const group = present(order[(turn + i) % order.length], 'group in turn');
      const q = queues.get(group);
      if (!q || q.length === 0 || (inFlight.get(group) ?? 0) >= options.perGroup) continue;
      turn = (turn + i + 1) % order.length;
      const entry = present(q.shift(), `next task of group ${group}`);
      if (q.length === 0) queues.delete(group);
      return entry;
    }
    return undefined;
  };
  const pump = () => {
    while (running < options.concurrency) {
      const picked = next();
      if (!picked) break;
      running++;
      inFlight.set(picked.group, (inFlight.get(picked.group) ?? 0) + 1);
      void run(picked.task)
        .catch(() => undefined)
        .finally(() => {
          running--;
          inFlight.set(picked.group, present(inFlight.get(picked.group), `in-flight count of group ${picked.group}`) - 1);
          pump();
        });
    }
    if (running === 0 && queues.size === 0) settle();
    else if (running === 0) {
      // Only groups at their cap remain and none in flight: impossible unless perGroup < 1.
      for (const g of [...queues.keys()]) drop(g);
      settle();
    }
  };
  queueMicrotask(pump);
  return {
    done,
    skipGroup(group: string) {
      if (skipped.has(group)) return;
      skipped.add(group);
      drop(group);
    },
  };
}
