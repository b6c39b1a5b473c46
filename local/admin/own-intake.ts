import type { AppContext } from '../../shared/ports/app-context';
import type { SendExampleDeps } from './send-example';

/**
 * An example sent from inside the runtime (`npm run trigger` through POST /admin/trigger, the
 * console's "Send example"): to its own intake on loopback, the path a real delivery takes.
 */
export function ownIntakeSender(ctx: AppContext): SendExampleDeps {
  const intakeBase = `http://127.0.0.1:${ctx.config.port}`;
  return { ctx, fetch: ctx.fetch, intakeUrl: (endpointId) => `${intakeBase}/webhooks/github/${endpointId}` };
}
