import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import type { GitHubAppConfig } from '../../config/config';
import { AppError } from '../../domain/errors';
import type { GitHubAppKeeper } from '../../ports/github-app-keeper';
import { appFromIdentity, appIdentityText } from './app-identity-secret';
import type { SecretsManagerSender } from './secrets-manager-reader';

/** The stack's four secrets of the App, by the ARNs its functions are given. */
export interface AppSecretArns {
  privateKey?: string;
  clientSecret?: string;
  webhookSecret?: string;
  identity?: string;
}

export interface AppKeeperOptions {
  /** The container's settings, where every part reads the App at each use: the kept App is put in use here at once. */
  github: { app?: GitHubAppConfig };
  /** The deploy settings name an App (GITHUB_APP_ID, _SLUG, _CLIENT_ID): they win over the identity secret in every function. */
  deploySettingsNameApp: boolean;
}

/**
 * On AWS the App's private key, client secret and webhook secret go into the stack's secrets
 * (a new version of each), then its identity (id, slug, client id) into the identity secret,
 * last: a function that reads the identity finds the secrets it names written. This container
 * acts as the App at once; every other function takes it from the identity secret within a
 * minute (shared/wiring/app-identity-refresh.ts), with no deploy. Unless the deploy settings
 * name an App: they win, so the answer names the settings to change.
 */
export function secretsManagerAppKeeper(client: SecretsManagerSender, arns: AppSecretArns, options: AppKeeperOptions): GitHubAppKeeper {
  return async (app) => {
    const writes: Array<[string | undefined, string, string]> = [
      [arns.privateKey, app.privateKey, 'GITHUB_APP_PRIVATE_KEY_SECRET_ARN'],
      [arns.clientSecret, app.clientSecret, 'GITHUB_APP_CLIENT_SECRET_ARN'],
      [arns.webhookSecret, app.webhookSecret, 'GITHUB_APP_WEBHOOK_SECRET_ARN'],
      [arns.identity, appIdentityText(app), 'GITHUB_APP_IDENTITY_SECRET_ARN'],
    ];
    const missing = writes.filter(([arn]) => !arn).map(([, , name]) => name);
    if (missing.length > 0)
      throw new AppError('not_configured', `The App's secrets cannot be kept: ${missing.join(', ')} not set`, { missing });
    // In order, one after the other: the identity is written only once the three secrets are.
    for (const [arn, value] of writes) await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: value }));
    if (options.deploySettingsNameApp)
      return {
        inUse: false,
        settings: { githubAppId: app.appId, githubAppSlug: app.slug, githubAppClientId: app.clientId },
        nextStep:
          'It is kept in the stack\u2019s secrets, but the deploy settings name another App and win over it: set these three deploy settings (or clear them, and the functions read the kept App) and deploy again.',
      };
    options.github.app = appFromIdentity(app, arns);
    return { inUse: true };
  };
}
