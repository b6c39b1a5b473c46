import { PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { AppError } from '../../domain/errors';
import type { GitHubAppKeeper } from '../../ports/github-app-keeper';
import type { SecretsManagerSender } from './secrets-manager-reader';

/** The stack's three secrets of the App, by the ARNs its functions are given. */
export interface AppSecretArns {
  privateKey?: string;
  clientSecret?: string;
  webhookSecret?: string;
}

/**
 * On AWS the App's private key, client secret and webhook secret go into the stack's secrets
 * (a new version of each). Its id, slug and client id are deploy settings, set on every
 * function's environment by the stack: they take effect with the next deploy, which also gives
 * every function fresh containers that read the new secrets.
 */
export function secretsManagerAppKeeper(client: SecretsManagerSender, arns: AppSecretArns): GitHubAppKeeper {
  return async (app) => {
    const writes: Array<[string | undefined, string, string]> = [
      [arns.privateKey, app.privateKey, 'GITHUB_APP_PRIVATE_KEY_SECRET_ARN'],
      [arns.clientSecret, app.clientSecret, 'GITHUB_APP_CLIENT_SECRET_ARN'],
      [arns.webhookSecret, app.webhookSecret, 'GITHUB_APP_WEBHOOK_SECRET_ARN'],
    ];
    const missing = writes.filter(([arn]) => !arn).map(([, , name]) => name);
    if (missing.length > 0)
      throw new AppError('not_configured', `The App's secrets cannot be kept: ${missing.join(', ')} not set`, { missing });
    for (const [arn, value] of writes) await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: value }));
    return {
      inUse: false,
      settings: { githubAppId: app.appId, githubAppSlug: app.slug, githubAppClientId: app.clientId },
      nextStep:
        'Its private key, client secret and webhook secret are in the stack\u2019s secrets. Set these three deploy settings and deploy again: every function reads the App from its environment.',
    };
  };
}
