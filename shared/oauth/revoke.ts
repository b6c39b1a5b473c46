import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { readStoredToken } from '../store/stored-token';
import { boundOrigin, originOf } from './token-origin';
import { AppError } from '../domain/errors';
import type { Connection, StoredToken } from '../domain/model';
import { clientCredentials } from './providers';
import { discardBody } from '../http/bounded-body';

/** What revocation did: `revoked` only when the provider confirmed it; `note` says why not otherwise. */
export interface RevokeOutcome {
  revoked: boolean;
  note?: string;
}

export interface RevokeResult {
  revoked: boolean;
  reason?: string;
  /** True when revocation was due but did not happen (provider down or refusing, not configured). */
  failed?: boolean;
}

type RevokeDeps = Pick<AppContext, 'config' | 'store' | 'secrets' | 'fetch' | 'logger' | 'oauthClientSecret'>;

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

async function send(deps: RevokeDeps, url: string, init: RequestInit): Promise<number | undefined> {
  try {
    const res = await deps.fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(10_000) });
    await discardBody(res);
    return res.status;
  } catch {
    return undefined;
  }
}

/**
 * Code host OAuth: deleting the grant removes the app's authorization (all of its tokens)
 * for that user, which is the clean end of a connection. But several connections may be
 * the same account: then only this connection's token is deleted, so the others live on.
 */
async function revokeGithub(deps: RevokeDeps, connection: Connection, token: StoredToken): Promise<RevokeResult> {
  if (connection.authMethod !== 'oauth') {
    return {
      revoked: false,
      reason:
        'A user-made token is deleted here only: revoke it at the code host yourself (Settings > Developer settings > Personal access tokens), the app cannot',
    };
  }
  // Revocation sends the token to GITHUB_API_URL: never when it was issued for another origin.
  if (boundOrigin(token, connection, deps.config) !== originOf(deps.config.github.apiUrl)) {
    return { revoked: false, reason: 'the token was issued for another server than GITHUB_API_URL: not sent there to be revoked' };
  }
  const accessToken = token.accessToken;
  const { clientId, clientSecret } = await clientCredentials(deps, 'github');
  const siblings = connection.accountId
    ? (await new ConnectionRepo(deps.store).list()).filter(
        (c) => c.id !== connection.id && c.provider === 'github' && c.authMethod === 'oauth' && c.accountId === connection.accountId,
      )
    : [];
  const what = siblings.length > 0 ? 'token' : 'grant';
  const status = await send(deps, `${deps.config.github.apiUrl}/applications/${encodeURIComponent(clientId)}/${what}`, {
    method: 'DELETE',
    headers: {
      authorization: basic(clientId, clientSecret),
      accept: 'application/vnd.github+json',
      'content-type': 'application/json',
      'user-agent': 'agent-integrations',
    },
    body: JSON.stringify({ access_token: accessToken }),
  });
  if (status === 204) return { revoked: true };
  // 404/422: the grant or token is already gone (revoked by the user).
  if (status === 404 || status === 422) return { revoked: false, reason: `already revoked at the code host (HTTP ${status})` };
  return { revoked: false, failed: true, reason: status === undefined ? 'code host unreachable' : `code host answered HTTP ${status}` };
}

/**
 * The collection service documents no revocation endpoint; `POST /oauth/revoke` (RFC 7009,
 * as its OAuth server's conventions suggest) is tried best effort with the refresh token,
 * which ends the whole grant where the server follows RFC 7009 2.1.
 */
async function revokeContentSnare(deps: RevokeDeps, token: { accessToken: string; refreshToken?: string }): Promise<RevokeResult> {
  const { clientId, clientSecret } = await clientCredentials(deps, 'contentsnare');
  const [value, hint] = token.refreshToken ? [token.refreshToken, 'refresh_token'] : [token.accessToken, 'access_token'];
  const status = await send(deps, `${deps.config.contentsnare.oauthUrl}/oauth/revoke`, {
    method: 'POST',
    // Client credentials in the body only: RFC 6749 2.3 allows one client authentication method per request.
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ token: value, token_type_hint: hint, client_id: clientId, client_secret: clientSecret }).toString(),
  });
  if (status === 200 || status === 204) return { revoked: true };
  return {
    revoked: false,
    failed: true,
    reason: status === undefined ? 'collection service unreachable' : `collection service answered HTTP ${status}`,
  };
}

/**
 * Revokes a connection's token at its provider where the provider offers that. Best
 * effort: never throws for a provider-side failure (the caller still deletes the secret);
 * the outcome is returned and logged, without the token.
 */
export async function revokeConnection(deps: RevokeDeps, connection: Connection): Promise<RevokeResult> {
  const log = deps.logger.child({ connectionId: connection.id, provider: connection.provider });
  let result: RevokeResult;
  try {
    const token = await readStoredToken(deps.secrets, connection);
    if (!token) result = { revoked: false, reason: 'no stored token' };
    else if (connection.provider === 'github') result = await revokeGithub(deps, connection, token);
    else result = await revokeContentSnare(deps, token);
  } catch (e) {
    const reason = e instanceof AppError && e.code === 'not_configured' ? e.message : 'revocation failed';
    result = { revoked: false, failed: true, reason };
  }
  log.info('token revocation at provider', { revoked: result.revoked, reason: result.reason });
  return result;
}

/**
 * The `revoke` callback of `disconnect()` (shared/connections/disconnect.ts), which expects
 * a throw when revocation failed: throws only for a revocation that was due and failed.
 * "Nothing to revoke" (user-made tokens) and "already revoked" answer `revoked: false` with
 * the reason as a note, so the answer never claims a revocation that did not happen.
 */
export function revokeForDisconnect(deps: RevokeDeps): (connection: Connection) => Promise<RevokeOutcome> {
  return async (connection) => {
    const result = await revokeConnection(deps, connection);
    if (result.failed) throw new Error(result.reason ?? 'revocation failed');
    return result.revoked ? { revoked: true } : { revoked: false, ...(result.reason !== undefined ? { note: result.reason } : {}) };
  };
}
