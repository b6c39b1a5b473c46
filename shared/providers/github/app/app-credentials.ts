import type { AppContext } from '../../../ports/app-context';
import type { GitHubAppConfig } from '../../../config/config';
import { AppError } from '../../../domain/errors';
import type { ClientCredentials } from '../../../oauth/providers';

/** The settings the App's connect flow needs, named in every `not_configured` answer. */
export const appSettingNames = ['GITHUB_APP_ID', 'GITHUB_APP_SLUG', 'GITHUB_APP_CLIENT_ID', 'GITHUB_APP_CLIENT_SECRET'] as const;

/**
 * The GitHub App's settings and its OAuth client credentials (the App's own client id and
 * secret, not the OAuth app's): what its user authorization and the refresh of its user
 * tokens use. Unset: `not_configured`, naming what is missing.
 */
export async function appClientCredentials(
  ctx: Pick<AppContext, 'config' | 'githubAppSecret'>,
): Promise<ClientCredentials & { app: GitHubAppConfig }> {
  const app = ctx.config.github.app;
  const clientSecret = app ? await ctx.githubAppSecret('clientSecret') : undefined;
  if (!app || !clientSecret) {
    const missing = app ? ['GITHUB_APP_CLIENT_SECRET'] : [...appSettingNames];
    throw new AppError(
      'not_configured',
      `The GitHub App is not configured: set ${missing.join(', ')}${app ? ' (or GITHUB_APP_CLIENT_SECRET_ARN)' : ''}`,
      { provider: 'github', missing },
    );
  }
  return { app, clientId: app.clientId, clientSecret };
}
