import * as z from 'zod';
import type { Config } from '../config/config';
import type { Provider } from '../domain/model';
import type { Fetch } from '../ports';
import type { TokenAnswer } from './token-client';

export interface AccountIdentity {
  accountLogin: string;
  accountId?: string;
  scopes?: string[];
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

const contentSnareHints = z
  .object({
    resource_owner_id: z.union([z.string(), z.number()]).optional(),
    email: z.string().optional(),
    account_name: z.string().optional(),
    name: z.string().optional(),
  })
  .loose();

/**
 * The collection service documents no "who am I" call in its partner API, so no request is
 * made: the account is named from whatever the token answer carries (owner id, e-mail or
 * name when present), else from the user's label. Reconnects keep the connection's name.
 */
function identifyContentSnare(answer: TokenAnswer, label: string | undefined): AccountIdentity {
  const hints = contentSnareHints.safeParse(answer.raw);
  const h = hints.success ? hints.data : {};
  const accountId = h.resource_owner_id !== undefined ? String(h.resource_owner_id) : undefined;
  const accountLogin = h.email ?? h.account_name ?? h.name ?? label ?? 'Content Snare account';
  const scopes = splitScopes(answer.token.scope);
  return { accountLogin, ...(accountId ? { accountId } : {}), ...(scopes ? { scopes } : {}) };
}

/** Who the new token belongs to. */
export async function identifyAccount(
  config: Config,
  fetch: Fetch,
  provider: Provider,
  answer: TokenAnswer,
  label: string | undefined,
): Promise<AccountIdentity> {
  return provider === 'github' ? identifyGithub(config, fetch, answer) : identifyContentSnare(answer, label);
}
