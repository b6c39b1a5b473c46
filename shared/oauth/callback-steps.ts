import { sameSecret } from '../domain/same-secret';
import type { AppContext } from '../ports/app-context';
import { AppError, InvalidInputError } from '../domain/errors';
import type { Provider } from '../domain/model';
import type { Logger } from '../observability/logger';
import { AccountLookupError } from './identify';
import { withQuery } from './return-to';
import { bindingCookieName, bindingHash, readCookie } from './start';
import { consumeState, readState, type OAuthStateRecord } from './state-store';
import { TokenEndpointError } from './token-client';

/**
 * What every callback does the same, the OAuth providers' and the GitHub App's: the state
 * checked and taken, the provider's own refusal, the failures of the code exchange and the
 * account look-up, and the answer (a redirect to `returnTo`, else a page).
 */

/** The error codes every callback may answer with, stable and never carrying the provider's text. */
export type SharedCallbackErrorCode =
  | 'access_denied'
  | 'authorization_failed'
  | 'invalid_request'
  | 'not_configured'
  | 'token_exchange_failed'
  | 'account_lookup_failed'
  | 'connect_page_used'
  | 'server_error';

/**
 * The status and message of each shared code, naming the service as `at` (after a preposition)
 * and `who` (at the start of a sentence); a flow gives its own `invalid_request` and
 * `not_configured`, whose remedies differ.
 */
export function sharedCallbackMessages(
  names: { at: string; who: string },
  own: Record<'invalid_request' | 'not_configured', [number, string]>,
): Record<SharedCallbackErrorCode, [number, string]> {
  return {
    access_denied: [400, `Access was denied at ${names.at}`],
    authorization_failed: [400, `${names.who} reported an authorization error`],
    ...own,
    token_exchange_failed: [502, `${names.who} refused to exchange the authorization code`],
    account_lookup_failed: [502, `The connected account could not be read from ${names.at}`],
    connect_page_used: [409, 'This connect page already made a connection, or expired'],
    server_error: [500, 'Connecting failed; try again'],
  };
}

export type CallbackOutcome = { kind: 'redirect'; location: string } | { kind: 'page'; status: number; body: Record<string, unknown> };

/** A query parameter given at most once (empty is absent); twice is the caller's mistake. */
export function singleParam(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw new InvalidInputError([{ field: name, message: 'given more than once' }]);
  return all[0] === '' ? undefined : all[0];
}

export function boundToThisBrowser(record: OAuthStateRecord, cookie: string | undefined): boolean {
  if (record.bindingHash === undefined || cookie === undefined) return false;
  return sameSecret(record.bindingHash, bindingHash(cookie));
}

/** Which states a callback finishes: those of type `R`. */
export interface StateCheck<R extends OAuthStateRecord> {
  /** How its log lines name the flow: `oauth`, `github app`. */
  flow: string;
  logFields?: Record<string, unknown>;
  /** Whether a state is one this callback could finish at all (the App's: only an App flow's). */
  knows(record: OAuthStateRecord): record is R;
  /** Why a taken state is not this callback's, if it is not. */
  foreign?(record: OAuthStateRecord): string | undefined;
  redirectUri: string;
}

const unknownState = 'Unknown, expired or already used state; start the connection again';

/**
 * The state of a callback, taken. A missing, unknown, expired, reused or foreign state, or a
 * browser without the flow's binding cookie, throws `invalid_input` (400) before any call to
 * the token endpoint. Only the browser that opened the start step may finish the flow: that
 * is checked before the state is taken, so a callback URL planted in another browser cannot
 * spend it either.
 */
export async function takeState<R extends OAuthStateRecord>(
  ctx: AppContext,
  query: URLSearchParams,
  cookieHeader: string | undefined,
  check: StateCheck<R>,
): Promise<R> {
  const state = singleParam(query, 'state');
  if (state === undefined) throw new InvalidInputError([{ field: 'state', message: 'missing' }]);
  const pending = await readState(ctx.store, ctx.clock, state);
  if (!pending || !check.knows(pending)) throw new AppError('invalid_input', unknownState);
  if (!boundToThisBrowser(pending, readCookie(cookieHeader, bindingCookieName(state)))) {
    ctx.logger.warn(`${check.flow} callback refused: not the browser that started the flow`, check.logFields);
    throw new AppError(
      'invalid_input',
      'This callback did not come from the browser that started the connection; start the connection again, in one browser',
    );
  }
  const record = await consumeState(ctx.store, ctx.clock, state);
  if (!record || !check.knows(record)) throw new AppError('invalid_input', unknownState);
  const foreign = check.foreign?.(record);
  if (foreign !== undefined) throw new AppError('invalid_input', foreign);
  if (record.redirectUri !== check.redirectUri) throw new AppError('invalid_input', 'The state was issued for another redirect URI');
  return record;
}

/** The provider's own refusal (`error=`), as a code of ours (never its text), logged; undefined when there is none. */
export function providerRefusal(query: URLSearchParams, log: Logger, flow: string): 'access_denied' | 'authorization_failed' | undefined {
  const providerError = singleParam(query, 'error');
  if (providerError === undefined) return undefined;
  log.info(`${flow} callback: provider reported an error`, { oauthError: providerError.slice(0, 64) });
  return providerError === 'access_denied' ? 'access_denied' : 'authorization_failed';
}

/** A failure of the code exchange, the account look-up or the configuration, as its code, logged; undefined for any other error. */
export function exchangeFailure(
  e: unknown,
  log: Logger,
  flow: string,
): 'token_exchange_failed' | 'account_lookup_failed' | 'not_configured' | undefined {
  if (e instanceof TokenEndpointError) {
    log.warn(`${flow} callback: token exchange failed`, { kind: e.kind, oauthError: e.oauthError, status: e.status });
    return 'token_exchange_failed';
  }
  if (e instanceof AccountLookupError) {
    log.warn(`${flow} callback: account lookup failed`, { status: e.status });
    return 'account_lookup_failed';
  }
  if (e instanceof AppError && e.code === 'not_configured') return 'not_configured';
  return undefined;
}

/** A failed callback: back to `returnTo` with `error=` (and `extra`), else a page with the code's status and message. */
export function failedAnswer(
  record: OAuthStateRecord,
  provider: Provider,
  code: string,
  [status, message]: [number, string],
  extra: Record<string, string> = {},
): CallbackOutcome {
  if (record.returnTo !== undefined) return { kind: 'redirect', location: withQuery(record.returnTo, { error: code, ...extra }) };
  return { kind: 'page', status, body: { provider, error: { code, message, ...extra } } };
}

/** A saved connection: back to `returnTo` with `connectionId=`, else a page naming it and its account. */
export function connectedAnswer(record: OAuthStateRecord, provider: Provider, connectionId: string, account: string): CallbackOutcome {
  if (record.returnTo === undefined) return { kind: 'page', status: 200, body: { provider, connectionId, status: 'connected', account } };
  return { kind: 'redirect', location: withQuery(record.returnTo, { connectionId }) };
}
