import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import type { Config } from '../config/config';
import { ConnectionRepo } from '../store/connection-repo';
import { connectionTargetOrigin, providerApiOrigin } from './token-origin';
import { AppError } from '../domain/errors';
import { providers, type Provider } from '../domain/model';
import { parseOrThrow } from '../domain/validation';
import { pkceChallenge, randomUrlToken } from './pkce';
import { clientCredentials, redirectUriFor, type OAuthProviderDef } from './providers';
import { checkReturnTo } from './return-to';
import { saveState, stateLifetimeMs, type OAuthStateRecord } from './state-store';

export const authorizeInputSchema = z.object({
  returnTo: z.string().min(1).max(2048).optional(),
  label: z.string().trim().min(1).max(200).optional(),
  /** Reconnect: replace this connection's token in place (same id), e.g. to rotate access. */
  connectionId: z.string().min(1).max(100).optional(),
  /**
   * Scopes beyond the configured ones, asked for only when a feature needs them: the
   * collection service's `administration` (its webhooks, for the contentsnare.* triggers).
   */
  scopes: z
    .array(z.enum(['administration']))
    .min(1)
    .max(1)
    .optional(),
});

export interface AuthorizeAnswer {
  authorizeUrl: string;
  /** ISO time after which the state in the URL is refused. */
  expiresAt: string;
}

/**
 * Starts an authorization: a fresh single-use state and PKCE verifier are kept
 * server-side (only the state's hash is the key, the verifier sealed under the state), and
 * the URL of our start step (`GET /oauth/{provider}/start?state=`) is returned for the
 * person's browser, which it binds to the flow and sends on to the provider.
 */
export async function startAuthorization(
  ctx: AppContext,
  provider: Provider,
  body: unknown,
  /** Started from a connect page: its session's token hash (connect-claim.ts). */
  connectSession?: string,
): Promise<AuthorizeAnswer> {
  const def = ctx.providers[provider].oauth;
  await clientCredentials(ctx, provider);
  const input = parseOrThrow(authorizeInputSchema, body);
  const returnTo = input.returnTo === undefined ? undefined : checkReturnTo(input.returnTo, ctx.config.allowedReturnOrigins);
  if (input.scopes !== undefined && !def.takesExtraScopes) {
    const takers = providers.filter((p) => ctx.providers[p].oauth.takesExtraScopes);
    throw new AppError('invalid_input', `scopes: ${def.displayName} takes no extra scopes; only ${takers.join(', ')} does`, {
      fields: [{ field: 'scopes', message: `only for ${takers.join(', ')}` }],
    });
  }
  if (input.connectionId !== undefined) {
    const existing = await new ConnectionRepo(ctx.store).get(input.connectionId);
    if (!existing) throw new AppError('connection_not_found', `Connection ${input.connectionId} does not exist`);
    if (existing.provider !== provider) {
      throw new AppError('invalid_input', `Connection ${input.connectionId} belongs to ${existing.provider}, not ${provider}`, {
        fields: [{ field: 'connectionId', message: `belongs to ${existing.provider}` }],
      });
    }
    // The new token is issued for the provider's API: a connection pointing elsewhere (an
    // enterprise server) would carry it there, so it cannot be reconnected through this app.
    const target = connectionTargetOrigin(ctx, existing);
    const issuedFor = providerApiOrigin(ctx, provider);
    if (target !== issuedFor) {
      throw new AppError(
        'token_origin_mismatch',
        `Connection ${input.connectionId} calls ${target}, but ${def.displayName} OAuth issues tokens for ${issuedFor}; connect a token for that server with POST /connections instead`,
        { fields: [{ field: 'connectionId', message: `calls ${target}, not ${issuedFor}` }] },
      );
    }
  }

  const state = randomUrlToken();
  const codeVerifier = randomUrlToken();
  const redirectUri = redirectUriFor(ctx.config, provider);
  const expiresAt = ctx.clock.now() + stateLifetimeMs;
  const record: OAuthStateRecord = { provider, redirectUri, codeVerifier, expiresAt };
  if (returnTo !== undefined) record.returnTo = returnTo;
  if (input.label !== undefined) record.label = input.label;
  if (input.connectionId !== undefined) record.connectionId = input.connectionId;
  if (input.scopes !== undefined) record.extraScopes = input.scopes;
  if (connectSession !== undefined) record.connectSession = connectSession;
  await saveState(ctx.store, state, record);

  ctx.logger.info('oauth authorization started', {
    provider,
    reconnect: input.connectionId !== undefined,
    connectionId: input.connectionId,
  });
  ctx.metrics.count('oauth_authorize_started', 1, { provider });
  // The browser opens our start step first: it binds the flow to that browser with a
  // cookie (a Set-Cookie on this answer would reach the platform's back end, not the
  // browser), then sends it on to the provider's authorize URL.
  const start = new URL(`${ctx.config.publicUrl}/oauth/${provider}/start`);
  start.searchParams.set('state', state);
  return { authorizeUrl: start.toString(), expiresAt: new Date(expiresAt).toISOString() };
}

/** The provider's authorize URL for a state: where the start step sends the browser. */
export function providerAuthorizeUrl(
  config: Config,
  def: OAuthProviderDef,
  clientId: string,
  state: string,
  record: OAuthStateRecord,
): string {
  const url = new URL(def.authorizeEndpoint(config));
  for (const [k, v] of Object.entries(def.authorizeExtras)) url.searchParams.set(k, v);
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', record.redirectUri);
  const scopes = [...new Set([...def.scopes(config).split(' ').filter(Boolean), ...(record.extraScopes ?? [])])];
  url.searchParams.set('scope', scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', pkceChallenge(record.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}
