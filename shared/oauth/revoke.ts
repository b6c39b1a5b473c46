import type { AppContext } from '../ports/app-context';
import { readStoredToken } from '../store/stored-token';
import { AppError } from '../domain/errors';
import type { Connection, StoredToken } from '../domain/model';
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

export type RevokeDeps = Pick<AppContext, 'config' | 'store' | 'secrets' | 'fetch' | 'logger' | 'oauthClientSecret' | 'providers'>;

/** A provider's revocation of a connection's stored token: never throws for a provider-side failure. */
export type Revoker = (deps: RevokeDeps, connection: Connection, token: StoredToken) => Promise<RevokeResult>;

declare module '../ports/provider-contract' {
  interface ProviderContract {
    /** Revokes a connection's token at the provider, where it offers that (shared/oauth/revoke.ts). */
    revoke: Revoker;
  }
}

export function basicAuth(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** One revocation call: bounded in time, never following a redirect; the status, or undefined when unreachable. */
export async function sendRevocation(deps: RevokeDeps, url: string, init: RequestInit): Promise<number | undefined> {
  try {
    const res = await deps.fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(10_000) });
    await discardBody(res);
    return res.status;
  } catch {
    return undefined;
  }
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
    else result = await deps.providers[connection.provider].revoke(deps, connection, token);
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
