import * as z from 'zod';
import type { AppContext } from '../../../ports/app-context';
import { AppError, InvalidInputError } from '../../../domain/errors';
import { parseOrThrow } from '../../../domain/validation';
import { appClientCredentials } from './app-credentials';
import { pkceChallenge, randomUrlToken } from '../../../oauth/pkce';
import { checkReturnTo } from '../../../oauth/return-to';
import { bindAndGo, type StartOutcome } from '../../../oauth/start';
import { readState, saveState, stateLifetimeMs, type OAuthStateRecord } from '../../../oauth/state-store';
import type { AuthorizeAnswer } from '../../../oauth/authorize';

/**
 * `POST /oauth/github-app/authorize`. `mode`: `install` (the default) opens the App's
 * installation page; `existing` only authorizes the user, for an installation already made
 * (an organization's, by its owner): `installationId` names it, or the only one the user can
 * see is taken. An `installationId` alone means `existing`.
 */
export const appAuthorizeInputSchema = z
  .object({
    returnTo: z.string().min(1).max(2048).optional(),
    label: z.string().trim().min(1).max(200).optional(),
    mode: z.enum(['install', 'existing']).optional(),
    installationId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .strict();

/** The App's callback, registered as its "Callback URL" (user authorization during installation on). */
export function appRedirectUri(publicUrl: string): string {
  return `${publicUrl}/oauth/github-app/callback`;
}

/**
 * Starts a GitHub App connection: a single-use state (10 minutes) kept server-side, and the URL
 * of our start step for the person's browser, which binds the flow to that browser and then
 * goes on to GitHub. Without the App configured: `not_configured` naming the settings.
 */
export async function startAppAuthorization(ctx: AppContext, body: unknown, connectSession?: string): Promise<AuthorizeAnswer> {
  await appClientCredentials(ctx);
  const input = parseOrThrow(appAuthorizeInputSchema, body);
  if (input.mode === 'install' && input.installationId !== undefined) {
    throw new InvalidInputError([{ field: 'installationId', message: 'only with mode "existing": a new installation is named by GitHub' }]);
  }
  const mode = input.mode ?? (input.installationId !== undefined ? 'existing' : 'install');
  const returnTo = input.returnTo === undefined ? undefined : checkReturnTo(input.returnTo, ctx.config.allowedReturnOrigins);
  const state = randomUrlToken();
  const expiresAt = ctx.clock.now() + stateLifetimeMs;
  const record: OAuthStateRecord = {
    provider: 'github',
    redirectUri: appRedirectUri(ctx.config.publicUrl),
    codeVerifier: randomUrlToken(),
    expiresAt,
    app: { mode, ...(input.installationId !== undefined ? { installationId: input.installationId } : {}) },
  };
  if (returnTo !== undefined) record.returnTo = returnTo;
  if (input.label !== undefined) record.label = input.label;
  if (connectSession !== undefined) record.connectSession = connectSession;
  await saveState(ctx.store, state, record);
  ctx.logger.info('github app connection started', { mode });
  ctx.metrics.count('oauth_authorize_started', 1, { provider: 'github_app' });
  const start = new URL(`${ctx.config.publicUrl}/oauth/github-app/start`);
  start.searchParams.set('state', state);
  return { authorizeUrl: start.toString(), expiresAt: new Date(expiresAt).toISOString() };
}

/**
 * `GET /oauth/github-app/start?state=`: binds the flow to this browser, then on to the App's
 * installation page (`install`) or its user authorization (`existing`, with PKCE). GitHub
 * hands the state back to the callback either way.
 */
export async function handleAppStart(ctx: AppContext, query: URLSearchParams): Promise<StartOutcome> {
  const states = query.getAll('state');
  if (states.length !== 1 || !states[0])
    throw new InvalidInputError([{ field: 'state', message: states.length > 1 ? 'given more than once' : 'missing' }]);
  const state = states[0];
  const record = await readState(ctx.store, ctx.clock, state);
  if (!record?.app) throw new AppError('invalid_input', 'Unknown, expired or already used state; start the connection again');
  const { app, clientId } = await appClientCredentials(ctx);
  let location: URL;
  if (record.app.mode === 'install') {
    location = new URL(`${ctx.config.github.oauthUrl}/apps/${encodeURIComponent(app.slug)}/installations/new`);
  } else {
    location = new URL(`${ctx.config.github.oauthUrl}/login/oauth/authorize`);
    location.searchParams.set('client_id', clientId);
    location.searchParams.set('redirect_uri', record.redirectUri);
    location.searchParams.set('code_challenge', pkceChallenge(record.codeVerifier));
    location.searchParams.set('code_challenge_method', 'S256');
  }
  location.searchParams.set('state', state);
  return bindAndGo(ctx, 'github-app', state, record, location.toString());
}
