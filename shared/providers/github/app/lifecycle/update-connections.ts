import type { Connection } from '../../../../domain/model';
import type { AppContext } from '../../../../ports/app-context';
import { ConnectionRepo } from '../../../../store/connection-repo';

/**
 * Applies `change` to each connection (read-modify-write, optimistic), a few at a time so
 * that an installation with hundreds of connections neither waits for each in turn nor
 * floods the store. `change` answers undefined to leave a connection as it is. Answers how
 * many were changed.
 */
export async function updateConnections(
  ctx: Pick<AppContext, 'store' | 'clock'>,
  connections: readonly Connection[],
  change: (c: Connection) => Connection | undefined,
): Promise<number> {
  const repo = new ConnectionRepo(ctx.store);
  const updatedAt = new Date(ctx.clock.now()).toISOString();
  let changed = 0;
  const queue = [...connections];
  const worker = async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      let touched = false;
      await repo.update(c.id, (current) => {
        const next = change(current);
        touched = next !== undefined;
        return next === undefined ? current : { ...next, updatedAt };
      });
      if (touched) changed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, queue.length) }, worker));
  return changed;
}
