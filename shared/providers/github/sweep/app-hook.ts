import { codeHostAccess, type CodeHostAccess } from '../code-host-access';
import { appJwt } from '../app/app-jwt';
import { AppError } from '../../../domain/errors';
import type { AppContext } from '../../../ports/app-context';
import { keys } from '../../../store/table-design';
import type { HookDelivery } from '../../../sweep/swept-hook';
import type { ProviderSweep } from '../../../sweep/sweep-once';
import { appHookBase, endpointHookBase, sweptHook } from './hook-deliveries';

/** The sweep-state row and log name of the App's webhook (endpoint ids never take this form). */
export const appSweepId = 'app';

/**
 * The GitHub App's webhook as the sweep walks it: its delivery log (`/app/hook/deliveries`)
 * holds every installation's deliveries, and the App intake claims each under its
 * installation (`keys.appRouteId`), so that is where the sweep looks for the claim.
 */
const appHookRoute = {
  id: appSweepId,
  base: appHookBase,
  routeId: (d: HookDelivery) => (typeof d.installation_id === 'number' ? keys.appRouteId(d.installation_id) : undefined),
};

/**
 * The App's webhook is read with the App's JWT (GitHub accepts no other credential there), on
 * the configured API base, the one the App's JWT is made for. A 401 gets one more try with a
 * freshly made JWT (the first may have been made just before a clock step). Undefined when
 * the App has no private key here.
 */
export async function appHookAccess(ctx: Pick<AppContext, 'config' | 'githubAppSecret'>): Promise<CodeHostAccess | undefined> {
  const app = ctx.config.github.app;
  if (!app) throw new AppError('not_configured', 'The GitHub App is not configured');
  const privateKey = await ctx.githubAppSecret('privateKey');
  // Without its key the App can read nothing (nor mint a token): the webhook is taken, not swept.
  if (!privateKey) return undefined;
  const jwt = () => appJwt(app, privateKey);
  const access: CodeHostAccess = {
    baseUrl: ctx.config.github.apiUrl,
    token: await jwt(),
    async renew(rejected) {
      const next = await jwt();
      if (next === rejected) return undefined;
      access.token = next;
      return next;
    },
  };
  return access;
}

/**
 * The code host's part of the sweep: the App's webhook, when the App is configured here with
 * its key, and each endpoint's hook, read with its connection's token.
 */
export const githubSweep: Required<ProviderSweep> = {
  async sharedHooks(ctx) {
    if (!ctx.config.github.app) return [];
    const access = await appHookAccess(ctx);
    return access ? [sweptHook(ctx.fetch, access, appHookRoute)] : [];
  },
  async endpointHook(ctx, connection, endpoint) {
    const access = await codeHostAccess(ctx, connection);
    return sweptHook(ctx.fetch, access, { id: endpoint.id, base: endpointHookBase(endpoint), routeId: () => endpoint.id });
  },
};
