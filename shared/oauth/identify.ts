import type { AppContext } from '../ports/app-context';
import type { Provider } from '../domain/model';
import { AppError } from '../domain/errors';
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

/**
 * The parsed body of a successful account answer, read bounded (decoded bytes); a refusal,
 * a redirect or an answer over the limit is an AccountLookupError.
 */
export async function accountAnswer(res: Response): Promise<unknown> {
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

/** `"repo, gist"` or `"repo gist"` -> `["repo", "gist"]`. */
export function splitScopes(s: string | undefined | null): string[] | undefined {
  if (s === undefined || s === null) return undefined;
  return s.split(/[\s,]+/).filter(Boolean);
}

export type IdentifyDeps = Pick<AppContext, 'config' | 'fetch'>;

/**
 * Who a new token belongs to, asked of its provider; an AccountLookupError when the provider
 * cannot say and the connection must not be made without it.
 */
export type Identify = (deps: IdentifyDeps, answer: TokenAnswer) => Promise<AccountIdentity>;

declare module '../ports/provider-contract' {
  interface ProviderContract {
    /** Who a new token belongs to (shared/oauth/identify.ts). */
    identify: Identify;
  }
}

/** Who the new token belongs to, asked of its provider. */
export function identifyAccount(
  deps: IdentifyDeps & Pick<AppContext, 'providers'>,
  provider: Provider,
  answer: TokenAnswer,
): Promise<AccountIdentity> {
  return deps.providers[provider].identify(deps, answer);
}
