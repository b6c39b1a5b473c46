import { AppError } from '../../domain/errors';
import { loadOnce } from '../../domain/load-once';
import type { GitHubAppConfig } from '../../config/config';

// The library is loaded at the first App call, not with every function that may never make one.
const loadAuthApp = loadOnce(() => import('@octokit/auth-app'));

type AppAuth = (options: { type: 'app' }) => Promise<{ token: string }>;

let made: { key: string; appId: string; auth: AppAuth } | undefined;

/**
 * A JSON Web Token that authenticates as the App (RS256 over the private key, `iss` the app
 * id, issued 30 s in the past and valid 10 minutes, as GitHub requires), made by
 * `@octokit/auth-app`. Its timestamps are the machine's real time on purpose: the code host
 * checks them against its own. The private key never leaves this module's closure.
 */
export async function appJwt(app: GitHubAppConfig, privateKey: string | undefined): Promise<string> {
  if (!privateKey) {
    throw new AppError(
      'not_configured',
      'The GitHub App has no private key: set GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_SECRET_ARN',
      {
        missing: ['GITHUB_APP_PRIVATE_KEY'],
      },
    );
  }
  if (!made || made.key !== privateKey || made.appId !== app.appId) {
    const { createAppAuth } = await loadAuthApp();
    made = { key: privateKey, appId: app.appId, auth: createAppAuth({ appId: app.appId, privateKey }) as unknown as AppAuth };
  }
  try {
    return (await made.auth({ type: 'app' })).token;
  } catch {
    // The library's message may quote the key material it failed to read: say only what is wrong.
    made = undefined;
    throw new AppError('not_configured', 'The GitHub App private key cannot be read as a PEM RSA key: check GITHUB_APP_PRIVATE_KEY');
  }
}
