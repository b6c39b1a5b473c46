import * as z from 'zod';
import type { Config } from '../config/config';
import type { Provider } from '../domain/model';
import type { Fetch } from '../ports';
import { AppError } from '../domain/errors';
import { contentSnareIdentityBounds, githubAccountId, githubLogin } from '../domain/account-identity';
import { discardBody, readBoundedText, upstreamBodyLimits } from '../http/bounded-body';
import type { TokenAnswer } from './token-client';

export interface AccountIdentity {
  accountLogin: string;
  accountId?: string;
  scopes?: string[];
  /** Set when the provider did not say who the token belongs to: why (the connection is made all the same). */
  unknownBecause?: string;
}

/** The account behind a new token could not be read (the connection is not created). */
export class AccountLookupError extends Error {
  constructor(
    readonly status?: number,
    /** Set when the answer was refused for its size: the limit it passed (decoded bytes). */
    readonly limitBytes?: number,
  ) {
    super(
      `account lookup failed${status ? ` (HTTP ${status})` : ''}${limitBytes ? `: the answer is larger than ${limitBytes} bytes` : ''}`,
    );
    this.name = 'AccountLookupError';
  }
}

const githubUserSchema = z.object({ login: githubLogin, id: githubAccountId });

/**
 * The parsed body of a successful account answer, read bounded (decoded bytes); a refusal,
 * a redirect or an answer over the limit is an AccountLookupError.
 */
async function accountAnswer(res: Response): Promise<unknown> {
  if (!res.ok) {
    await discardBody(res);
    throw new AccountLookupError(res.status);
  }
  let text: string;
  try {
    text = await readBoundedText(res, { maxBytes: upstreamBodyLimits.account, service: 'the account look-up' });
  } catch (e) {
    if (e instanceof AppError && e.code === 'upstream_error') throw new AccountLookupError(res.status, upstreamBodyLimits.account);
    throw new AccountLookupError(res.status);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function splitScopes(s: string | undefined | null): string[] | undefined {
  if (s === undefined || s === null) return undefined;
  return s.split(/[\s,]+/).filter(Boolean);
}

async function identifyGithub(config: Config, fetch: Fetch, answer: TokenAnswer): Promise<AccountIdentity> {
  let res: Response;
  try {
    res = await fetch(`${config.github.apiUrl}/user`, {
      headers: {
        authorization: `Bearer ${answer.token.accessToken}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'agent-integrations',
      },
      signal: AbortSignal.timeout(10_000),
      // A redirect (to 169.254.169.254 or anywhere) is a failed look-up, never followed with the token.
      redirect: 'error',
    });
  } catch {
    throw new AccountLookupError();
  }
  const user = githubUserSchema.safeParse(await accountAnswer(res));
  if (!user.success) throw new AccountLookupError(res.status);
  // The header lists what was granted, which may be less than what was asked for.
  const scopes = splitScopes(res.headers.get('x-oauth-scopes')) ?? splitScopes(answer.token.scope);
  return { accountLogin: user.data.login, accountId: String(user.data.id), ...(scopes ? { scopes } : {}) };
}

/**
 * `GET /partner_api/v1/me` (the partner API reference): documented only with `full_name`; an
 * `email` is likely (Inf) and preferred as the name shown when present.
 */
const contentSnareMeSchema = z.looseObject({
  email: z.string().trim().min(3).optional().catch(undefined),
  full_name: z.string().trim().min(1).optional().catch(undefined),
});

/**
 * The collection service's user behind the new token: `GET /partner_api/v1/me` (no scope
 * needed), for the connection's name only. It answers who authorised, not which account
 * (another admin of the same account is another user; a user may rename themselves), so no
 * account id is taken from it. Its failure does not fail the connect: the token works
 * without it, and the connection says its identity is unknown.
 */
async function identifyContentSnare(config: Config, fetch: Fetch, answer: TokenAnswer): Promise<AccountIdentity> {
  const scopes = splitScopes(answer.token.scope);
  const unknown = (why: string): AccountIdentity => ({ accountLogin: 'unknown', unknownBecause: why, ...(scopes ? { scopes } : {}) });
  let res: Response;
  try {
    res = await fetch(`${config.contentsnare.apiUrl}/partner_api/v1/me`, {
      headers: { authorization: `Bearer ${answer.token.accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
  } catch {
    return unknown('GET /me could not be reached');
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return unknown(`GET /me answered HTTP ${res.status}`);
  }
  let body: unknown;
  try {
    body = await accountAnswer(res);
  } catch {
    return unknown('GET /me answered what is not JSON within its size limit');
  }
  // A name past its bound is not cut short (a cut name could be another user's): it is unknown.
  for (const [field, max] of Object.entries(contentSnareIdentityBounds)) {
    const value = (body as Record<string, unknown> | undefined)?.[field];
    if (typeof value === 'string' && value.length > max) return unknown(`GET /me answered a ${field} longer than ${max} characters`);
  }
  const me = contentSnareMeSchema.safeParse(body);
  const accountLogin = me.success ? (me.data.email ?? me.data.full_name) : undefined;
  if (accountLogin === undefined) return unknown('GET /me named nobody (no full_name or email)');
  return { accountLogin, ...(scopes ? { scopes } : {}) };
}

/** Who the new token belongs to. */
export async function identifyAccount(
  config: Config,
  fetch: Fetch,
  provider: Provider,
  answer: TokenAnswer,
  _label?: string,
): Promise<AccountIdentity> {
  return provider === 'github' ? identifyGithub(config, fetch, answer) : identifyContentSnare(config, fetch, answer);
}
