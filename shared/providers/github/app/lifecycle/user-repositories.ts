import type { Connection } from '../../../../domain/model';
import { listUserInstallationRepositories } from '../installations';
import { codeHostAccess } from '../../code-host-access';
import { githubTimeoutMs } from '../../github-base';
import type { Logger } from '../../../../observability/logger';
import type { AppContext } from '../../../../ports/app-context';

/** How many users' listings are read at once when repositories are added to an installation. */
const inFlight = 8;

/**
 * The installation's repositories each connection's own user can access now
 * (`GET /user/installations/{id}/repositories` with that user's token, refreshed if it
 * expired), names lower-cased, by connection id. A connection whose listing cannot be read
 * (no token, a refresh refused, the code host failing) is left out: its allow-list does not
 * grow (fail closed), which is logged and counted.
 */
export async function userVisibleRepositories(
  ctx: AppContext,
  log: Logger,
  connections: readonly Connection[],
): Promise<Map<string, ReadonlySet<string>>> {
  const out = new Map<string, ReadonlySet<string>>();
  const deps = { fetch: ctx.fetch, clock: ctx.clock, timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds) };
  const queue = connections.filter((c) => c.installation !== undefined);
  const worker = async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      const installationId = c.installation?.id ?? 0;
      try {
        const access = await codeHostAccess(ctx, c, 'user');
        const names = await listUserInstallationRepositories(deps, access.baseUrl, access.token, installationId);
        out.set(c.id, new Set(names.map((n) => n.toLowerCase())));
      } catch (e) {
        ctx.metrics.count('app_installation_event', 1, { action: 'repositories_added_unchecked' });
        log.warn("repositories added to the installation: the user's access could not be read, the allow-list does not grow", {
          connectionId: c.id,
          installationId,
          error: e,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, queue.length) }, worker));
  return out;
}
