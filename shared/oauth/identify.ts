import * as z from 'zod';
import type { Config } from '../config/config';
import type { Provider } from '../domain/model';
import type { Fetch } from '../ports';
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
  constructor(readonly status?: number) {
    super(`account lookup failed${status ? ` (HTTP ${status})` : ''}`);
    this.name = 'AccountLookupError';
  }
}

const githubUserSchema = z.object({ login: z.string().min(1), id: z.number() });

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
    });
  } catch {
    throw new AccountLookupError();
  }
  if (!res.ok) throw new AccountLookupError(res.status);
  const user = githubUserSchema.safeParse(await res.json().catch(() => undefined));
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
    });
  } catch {
    return unknown('GET /me could not be reached');
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return unknown(`GET /me answered HTTP ${res.status}`);
  }
  const me = contentSnareMeSchema.safeParse(await res.json().catch(() => undefined));
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
