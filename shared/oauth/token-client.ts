import * as z from 'zod';
import { AppError } from '../domain/errors';
import { readBoundedText, upstreamBodyLimits } from '../http/bounded-body';
import type { StoredToken } from '../domain/model';
import type { Clock, Fetch } from '../ports';
import type { ClientCredentials, OAuthProviderDef } from './providers';

/**
 * Why a token call failed. `invalid_grant` is definitive (the code or refresh token is
 * dead); `transient` (network, 5xx, 429) may be retried; `rejected` is anything else the
 * provider refused (misconfigured client, bad request): not the connection's fault.
 */
export type TokenFailureKind = 'invalid_grant' | 'transient' | 'rejected';

/** Carries no token, code or secret: only the provider's error code and the HTTP status. */
export class TokenEndpointError extends Error {
  constructor(
    readonly kind: TokenFailureKind,
    readonly oauthError?: string,
    readonly status?: number,
    /** Set when the answer was refused for its size: the limit it passed (decoded bytes). */
    readonly limitBytes?: number,
  ) {
    super(`token endpoint failed (${kind}${oauthError ? `: ${oauthError}` : ''}${status ? `, HTTP ${status}` : ''})`);
    this.name = 'TokenEndpointError';
  }
}

/**
 * The longest lifetime (seconds) a token answer is believed: a year. Documented lifetimes are
 * hours (access tokens) and about six months (GitHub's refresh tokens); `expires_in: 1e308`
 * would store an expiry of Infinity, which no stored token can hold.
 */
export const maxTokenLifetimeSeconds = 366 * 24 * 3600;

const lifetime = z.coerce.number().positive().max(maxTokenLifetimeSeconds);

const successSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  scope: z.string().optional(),
  refresh_token: z.string().min(1).optional(),
  expires_in: lifetime.optional(),
  // GitHub's expiring user tokens: how long the refresh token itself lives (about 6 months).
  refresh_token_expires_in: lifetime.optional(),
});

/**
 * Error codes that say the refresh token is dead, for good: `invalid_grant` (RFC 6749) and
 * GitHub's `bad_refresh_token` (answered with HTTP 200: "incorrect or expired").
 */
const deadGrantCodes = new Set(['invalid_grant', 'bad_refresh_token']);

// The code host answers HTTP 200 with an `error` field for a bad code: always check it.
const errorSchema = z.object({ error: z.string().min(1) });

export type TokenAnswer = { token: StoredToken; raw: Record<string, unknown> };

export interface TokenCallDeps {
  fetch: Fetch;
  clock: Clock;
  /** Per-call time limit (ms). */
  timeoutMs?: number;
}

/**
 * One call to the provider's token endpoint (authorization_code or refresh_token grant).
 * The client credentials go in the body, as both providers document.
 */
export async function requestToken(
  deps: TokenCallDeps,
  def: OAuthProviderDef,
  endpoint: string,
  creds: ClientCredentials,
  params: Record<string, string>,
): Promise<TokenAnswer> {
  const fields = { ...params, client_id: creds.clientId, client_secret: creds.clientSecret };
  const body = def.tokenBody === 'json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
  let res: Response;
  try {
    res = await deps.fetch(endpoint, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': def.tokenBody === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      },
      body,
      redirect: 'error',
      signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000),
    });
  } catch {
    throw new TokenEndpointError('transient');
  }
  let text: string;
  try {
    text = await readBoundedText(res, { maxBytes: upstreamBodyLimits.token, service: 'the token endpoint' });
  } catch (e) {
    if (e instanceof AppError && e.code === 'upstream_error') {
      throw new TokenEndpointError('rejected', 'answer_too_large', res.status, upstreamBodyLimits.token);
    }
    text = '';
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const err = errorSchema.safeParse(json);
  if (err.success) {
    const code = err.data.error;
    if (deadGrantCodes.has(code)) throw new TokenEndpointError('invalid_grant', code, res.status);
    const transient = res.status >= 500 || res.status === 429 || code === 'temporarily_unavailable' || code === 'server_error';
    throw new TokenEndpointError(transient ? 'transient' : 'rejected', code.slice(0, 64), res.status);
  }
  if (res.status >= 500 || res.status === 429) throw new TokenEndpointError('transient', undefined, res.status);
  if (!res.ok) throw new TokenEndpointError('rejected', undefined, res.status);
  const ok = successSchema.safeParse(json);
  if (!ok.success) throw new TokenEndpointError('rejected', 'malformed_token_response', res.status);
  const t = ok.data;
  const expiresIn = t.expires_in ?? def.defaultExpiresInSeconds;
  const token: StoredToken = { accessToken: t.access_token };
  if (t.refresh_token) token.refreshToken = t.refresh_token;
  if (expiresIn !== undefined) token.expiresAt = deps.clock.now() + expiresIn * 1000;
  if (t.refresh_token && t.refresh_token_expires_in !== undefined)
    token.refreshTokenExpiresAt = deps.clock.now() + t.refresh_token_expires_in * 1000;
  if (t.token_type) token.tokenType = t.token_type;
  if (t.scope !== undefined) token.scope = t.scope;
  return { token, raw: json as Record<string, unknown> };
}
