import * as z from 'zod';
import { githubAccountId, githubLogin } from '../../../domain/account-identity';
import { AccountLookupError, accountAnswer, splitScopes, type Identify } from '../../../oauth/identify';

const githubUserSchema = z.object({ login: githubLogin, id: githubAccountId });

/** The code host's account behind a new token: `GET /user`, with the scopes it was granted. */
export const identifyGithub: Identify = async ({ config, fetch }, answer) => {
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
};
