import type { AppContext } from '../ports/app-context';
import type { Provider } from '../domain/model';
import {
  connectedAnswer,
  exchangeFailure,
  failedAnswer,
  providerRefusal,
  sharedCallbackMessages,
  singleParam,
  takeState,
  type CallbackOutcome,
  type SharedCallbackErrorCode,
} from './callback-steps';
import { identifyAccount } from './identify';
import { clientCredentials, redirectUriFor } from './providers';
import { saveOAuthConnection } from './save-connection';
import type { OAuthStateRecord } from './state-store';
import { requestToken } from './token-client';
import { claimConnectPage } from './connect-claim';

/** Error codes put in `returnTo?error=`; stable, and never carrying provider text. */
export type CallbackErrorCode =
  | SharedCallbackErrorCode
  | 'account_mismatch'
  | 'account_unverified'
  | 'token_origin_mismatch'
  | 'connection_not_found';

const messages: Record<CallbackErrorCode, [number, string]> = {
  ...sharedCallbackMessages(
    { at: 'the provider', who: 'The provider' },
    {
      invalid_request: [400, 'The callback carried no authorization code'],
      not_configured: [501, 'OAuth for this provider is not configured'],
    },
  ),
  account_mismatch: [409, 'Reconnect with the same account the connection was made with'],
  account_unverified: [409, 'The account could not be proven to be the one the connection was made with; connect it as a new connection'],
  token_origin_mismatch: [
    409,
    'The connection points at another server than this provider issues tokens for; connect it as a new connection',
  ],
  connection_not_found: [404, 'The connection to reconnect no longer exists'],
};

/** Every code a failed callback may name, for the API's description. */
export const callbackErrorCodes = Object.keys(messages) as CallbackErrorCode[];

export type { CallbackOutcome } from './callback-steps';

/**
 * The browser's return from the provider. The state is checked and taken first
 * (callback-steps.ts: a refused state throws `invalid_input` before any call to the token
 * endpoint). After the state is consumed, failures go back to `returnTo` with `error=` and
 * store nothing.
 */
export async function handleCallback(
  ctx: AppContext,
  provider: Provider,
  query: URLSearchParams,
  cookieHeader?: string,
): Promise<CallbackOutcome> {
  const record = await takeState(ctx, query, cookieHeader, {
    flow: 'oauth',
    logFields: { provider },
    knows: (r): r is OAuthStateRecord => true,
    foreign: (r) => (r.provider !== provider || r.app !== undefined ? 'The state was issued for another provider' : undefined),
    redirectUri: redirectUriFor(ctx.config, provider),
  });
  const log = ctx.logger.child({ provider, reconnect: record.connectionId !== undefined });
  const failed = (code: CallbackErrorCode) => failedAnswer(record, provider, code, messages[code]);

  const refused = providerRefusal(query, log, 'oauth');
  if (refused !== undefined) return failed(refused);
  const code = singleParam(query, 'code');
  if (code === undefined) return failed('invalid_request');

  try {
    const def = ctx.providers[provider].oauth;
    const creds = await clientCredentials(ctx, provider);
    const answer = await requestToken(ctx, def, def.tokenEndpoint(ctx.config), creds, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: record.redirectUri,
      code_verifier: record.codeVerifier,
    });
    const identity = await identifyAccount(ctx, provider, answer);
    const page = await claimConnectPage(ctx, record);
    if (!page.ok) return failed('connect_page_used');
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
      return failed(saved.error);
    }
    log.info('oauth connection saved', { connectionId: saved.connectionId });
    ctx.metrics.count('oauth_connected', 1, { provider });
    return connectedAnswer(record, provider, saved.connectionId, identity.accountLogin);
  } catch (e) {
    const known = exchangeFailure(e, log, 'oauth');
    if (known !== undefined) return failed(known);
    log.error('oauth callback failed', { error: e });
    return failed('server_error');
  }
}
