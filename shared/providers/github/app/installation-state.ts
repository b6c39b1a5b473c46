import { AppError } from '../../../domain/errors';
import type { AppContext } from '../../../ports/app-context';
import { githubTimeoutMs } from '../github-base';
import { appJwt } from './app-jwt';
import { getInstallation } from './installations';

/** What GitHub says of an installation now. */
export type InstallationState = { kind: 'deleted' } | { kind: 'present'; suspended: boolean };

/**
 * The installation as GitHub has it now (`GET /app/installations/{id}` with the App's JWT):
 * `deleted` when GitHub answers 404, else whether it is suspended (`suspended_at` set). A
 * lifecycle delivery that would end or pause connections is believed only when this agrees:
 * a signed body says what happened once, not what holds now. Any other failure is thrown
 * (the delivery is answered 5xx and tried again).
 */
export async function installationState(
  ctx: Pick<AppContext, 'config' | 'fetch' | 'clock' | 'githubAppSecret'>,
  installationId: number,
): Promise<InstallationState> {
  const app = ctx.config.github.app;
  if (!app) throw new AppError('not_configured', 'The GitHub App is not configured here');
  const jwt = await appJwt(app, await ctx.githubAppSecret('privateKey'));
  const deps = { fetch: ctx.fetch, clock: ctx.clock, timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds) };
  try {
    const installation = await getInstallation(deps, ctx.config.github.apiUrl, jwt, installationId);
    return { kind: 'present', suspended: installation.suspended };
  } catch (e) {
    if (e instanceof AppError && e.details?.status === 404) return { kind: 'deleted' };
    throw e;
  }
}
