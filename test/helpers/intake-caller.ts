import { routes as intakeRoutes } from '../../functions/webhook-intake/routes';
import { providerWebhooks } from '../../shared/wiring/provider-intake';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest } from '../../shared/http/types';
import type { AppContext } from '../../shared/ports/app-context';
import type { Shot } from './seed';

/** The intake's routes called in-process (no socket): for counting calls and comparing costs. */
export function intakeCaller(ctx: AppContext): (shot: Shot) => Promise<number> {
  const router = createRouter(intakeRoutes(ctx, providerWebhooks), { platformApiKey: ctx.platformApiKey });
  return async (shot) => {
    const req: HttpRequest = { method: 'POST', path: shot.path, headers: shot.headers, query: new URLSearchParams(), body: shot.body };
    return (await router(req)).status;
  };
}
