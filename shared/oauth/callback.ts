import { sameSecret } from '../domain/same-secret';
import type { AppContext } from '../ports/app-context';
import { AppError, InvalidInputError } from '../domain/errors';
import type { Provider } from '../domain/model';
import { AccountLookupError, identifyAccount } from './identify';
import { clientCredentials, oauthProviders, redirectUriFor } from './providers';
import { withQuery } from './return-to';
import { saveOAuthConnection } from './save-connection';
import { claimConnectPage } from './connect-claim';
import { bindingCookieName, bindingHash, readCookie } from './start';
import { consumeState, readState, type OAuthStateRecord } from './state-store';
import { requestToken, TokenEndpointError } from './token-client';

/** Error codes put in `returnTo?error=`; stable, and never carrying provider text. */
export type CallbackErrorCode =
  | 'access_denied'
  | 'authorization_failed'
  | 'invalid_request'
  | 'not_configured'
  | 'token_exchange_failed'
  | 'account_lookup_failed'
  | 'account_mismatch'
  | 'account_unverified'
  | 'token_origin_mismatch'
  | 'connection_not_found'
  | 'connect_page_used'
  | 'server_error';

const messages: Record<CallbackErrorCode, [number, string]> = {
  access_denied: [400, 'Access was denied at the provider'],
  authorization_failed: [400, 'The provider reported an authorization error'],
  invalid_request: [400, 'The callback carried no authorization code'],
  not_configured: [501, 'OAuth for this provider is not configured'],
  token_exchange_failed: [502, 'The provider refused to exchange the authorization code'],
  account_lookup_failed: [502, 'The connected account could not be read from the provider'],
  account_mismatch: [409, 'Reconnect with the same account the connection was made with'],
  account_unverified: [409, 'The account could not be proven to be the one the connection was made with; connect it as a new connection'],
  token_origin_mismatch: [
    409,
    'The connection points at another server than this provider issues tokens for; connect it as a new connection',
  ],
  connection_not_found: [404, 'The connection to reconnect no longer exists'],
  connect_page_used: [409, 'This connect page already made a connection, or expired'],
  server_error: [500, 'Connecting failed; try again'],
};

/** Every code a failed callback may name, for the API's description. */
export const callbackErrorCodes = Object.keys(messages) as CallbackErrorCode[];

export type CallbackOutcome = { kind: 'redirect'; location: string } | { kind: 'page'; status: number; body: Record<string, unknown> };

/** A query parameter given at most once (empty is absent); twice is the caller's mistake. */
export function singleParam(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw new InvalidInputError([{ field: name, message: 'given more than once' }]);
  return all[0] === '' ? undefined : all[0];
}

function failed(record: OAuthStateRecord, code: CallbackErrorCode): CallbackOutcome {
  if (record.returnTo !== undefined) return { kind: 'redirect', location: withQuery(record.returnTo, { error: code }) };
  const [status, message] = messages[code];
  return { kind: 'page', status, body: { provider: record.provider, error: { code, message } } };
}

export function boundToThisBrowser(record: OAuthStateRecord, cookie: string | undefined): boolean {
  if (record.bindingHash === undefined || cookie === undefined) return false;
  return sameSecret(record.bindingHash, bindingHash(cookie));
}

/**
 * The browser's return from the provider. A missing, unknown, expired, reused or foreign
 * state, or a browser without the flow's binding cookie, throws `invalid_input` (400)
 * before any call to the token endpoint. After the
 * state is consumed, failures go back to `returnTo` with `error=` and store nothing.
 */
export async function handleCallback(
  ctx: AppContext,
  provider: Provider,
  query: URLSearchParams,
  cookieHeader?: string,
): Promise<CallbackOutcome> {
  const state = singleParam(query, 'state');
  if (state === undefined) throw new InvalidInputError([{ field: 'state', message: 'missing' }]);
  // Only the browser that opened the start step may finish the flow. Checked before the
  // state is taken, so a callback URL planted in another browser cannot spend it either.
  const pending = await readState(ctx.store, ctx.clock, state);
  if (!pending) throw new AppError('invalid_input', 'Unknown, expired or already used state; start the connection again');
  if (!boundToThisBrowser(pending, readCookie(cookieHeader, bindingCookieName(state)))) {
    ctx.logger.warn('oauth callback refused: not the browser that started the flow', { provider });
    throw new AppError(
      'invalid_input',
      'This callback did not come from the browser that started the connection; start the connection again, in one browser',
    );
  }
  const record = await consumeState(ctx.store, ctx.clock, state);
  if (!record) throw new AppError('invalid_input', 'Unknown, expired or already used state; start the connection again');
  if (record.provider !== provider || record.app !== undefined)
    throw new AppError('invalid_input', 'The state was issued for another provider');
  if (record.redirectUri !== redirectUriFor(ctx.config, provider)) {
    throw new AppError('invalid_input', 'The state was issued for another redirect URI');
  }
  const log = ctx.logger.child({ provider, reconnect: record.connectionId !== undefined });

  const providerError = singleParam(query, 'error');
  if (providerError !== undefined) {
    log.info('oauth callback: provider reported an error', { oauthError: providerError.slice(0, 64) });
    return failed(record, providerError === 'access_denied' ? 'access_denied' : 'authorization_failed');
  }
  const code = singleParam(query, 'code');
  if (code === undefined) return failed(record, 'invalid_request');

  try {
    const def = oauthProviders[provider];
    const creds = await clientCredentials(ctx, provider);
    const answer = await requestToken(ctx, def, def.tokenEndpoint(ctx.config), creds, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: record.redirectUri,
      code_verifier: record.codeVerifier,
    });
    const identity = await identifyAccount(ctx.config, ctx.fetch, provider, answer, record.label);
    const page = await claimConnectPage(ctx, record);
    if (!page.ok) return failed(record, 'connect_page_used');
    const saved = await saveOAuthConnection(ctx, {
      ...(page.endUserId !== undefined ? { endUserId: page.endUserId } : {}),
      provider,
      token: answer.token,
      identity,
      ...(record.label !== undefined ? { label: record.label } : {}),
      ...(record.connectionId !== undefined ? { connectionId: record.connectionId } : {}),
    });
    if (!saved.ok) {
      log.warn('oauth callback: reconnect refused', { connectionId: record.connectionId, reason: saved.error });
      return failed(record, saved.error);
    }
    log.info('oauth connection saved', { connectionId: saved.connectionId });
    ctx.metrics.count('oauth_connected', 1, { provider });
    if (record.returnTo === undefined) {
      return {
        kind: 'page',
        status: 200,
        body: { provider, connectionId: saved.connectionId, status: 'connected', account: identity.accountLogin },
      };
    }
    return { kind: 'redirect', location: withQuery(record.returnTo, { connectionId: saved.connectionId }) };
  } catch (e) {
    if (e instanceof TokenEndpointError) {
      log.warn('oauth callback: token exchange failed', { kind: e.kind, oauthError: e.oauthError, status: e.status });
      return failed(record, 'token_exchange_failed');
    }
    if (e instanceof AccountLookupError) {
      log.warn('oauth callback: account lookup failed', { status: e.status });
      return failed(record, 'account_lookup_failed');
    }
    if (e instanceof AppError && e.code === 'not_configured') return failed(record, 'not_configured');
    log.error('oauth callback failed', { error: e });
    return failed(record, 'server_error');
  }
}
