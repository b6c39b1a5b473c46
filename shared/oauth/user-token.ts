import type { AppContext } from '../ports/app-context';

/** The account behind a token the user made, as its provider named it when the token was checked. */
export interface UserTokenAccount {
  accountLogin: string;
  accountId?: string;
  /** What the token was granted, where the provider says (classic code-host tokens). */
  scopes?: string[];
}

/**
 * Checks a token the user made against its provider, at `apiBaseUrl` when the connection names
 * its own API server: the account it names, and the base it was checked at (the origin the
 * token is then bound to). A token the provider refuses is `invalid_input` naming the field
 * `token`; a provider that cannot check it, `upstream_error`.
 */
export type UserTokenCheck = (
  ctx: Pick<AppContext, 'config' | 'fetch'>,
  token: string,
  apiBaseUrl: string | undefined,
) => Promise<{ account: UserTokenAccount; baseUrl: string }>;

declare module '../ports/provider-contract' {
  interface ProviderContract {
    /**
     * How a token the user made is checked (`POST /connections`, shared/oauth/user-token.ts);
     * a provider without it connects by OAuth only.
     */
    userToken?: UserTokenCheck;
  }
}
