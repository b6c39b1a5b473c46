import type { Shot } from '../../test/helpers/seed';

/** Runs `shots` through `call` with `concurrency` workers; returns ms per shot and the statuses. */
export async function pool(
  shots: readonly Shot[],
  concurrency: number,
  call: (s: Shot) => Promise<number>,
): Promise<{ msPerShot: number; statuses: number[] }> {
  let next = 0;
  const statuses: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < shots.length) statuses.push(await call(shots[next++]!));
    }),
  );
  return { msPerShot: (performance.now() - t0) / shots.length, statuses };
}
