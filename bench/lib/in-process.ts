import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest } from '../../shared/http/types';
import type { AppContext } from '../../shared/app/context';
import type { Shot } from './load';

/** The intake's routes called in-process (no socket): for counting calls and comparing costs. */
export function intakeCaller(ctx: AppContext): (shot: Shot) => Promise<number> {
  const router = createRouter(intakeRoutes(ctx), { platformApiKey: ctx.platformApiKey });
  return async (shot) => {
    const req: HttpRequest = { method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body };
    return (await router(req)).status;
  };
}

/** Runs `shots` through `call` with `concurrency` workers; returns ms per shot and the statuses. */
export async function pool(shots: readonly Shot[], concurrency: number, call: (s: Shot) => Promise<number>): Promise<{ msPerShot: number; statuses: number[] }> {
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
