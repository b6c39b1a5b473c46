import { Aws, type RemovalPolicy } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { IntegrationFunction } from './integration-function';
import { acknowledge } from './nag';

export interface PlatformSecretsProps {
  stage: string;
  removalPolicy: RemovalPolicy;
}

/** The stack's own secrets, by the `*_SECRET_ARN` variable the code reads for each. */
export type StackSecret =
  | 'PLATFORM_API_KEY_SECRET_ARN'
  | 'DISPATCH_SIGNING_SECRET_ARN'
  | 'GITHUB_CLIENT_SECRET_ARN'
  | 'CONTENTSNARE_CLIENT_SECRET_ARN'
  | 'GITHUB_APP_PRIVATE_KEY_SECRET_ARN'
  | 'GITHUB_APP_CLIENT_SECRET_ARN'
  | 'GITHUB_APP_WEBHOOK_SECRET_ARN'
  | 'GITHUB_APP_IDENTITY_SECRET_ARN';

/**
 * Secrets the functions create at run time, one area each under the stage's prefix. Connection tokens have one area
 * per provider (shared/domain/model.ts, `secretNames`): the code host's in `connections/`, the collection service's
 * in `contentsnare-connections/`, so a function is granted the tokens of the providers it calls and no others.
 */
export type SecretArea = 'connections/' | 'contentsnare-connections/' | 'endpoints/';
export type SecretAccess = 'read' | 'write' | 'update' | 'delete';

const actionsFor: Record<SecretAccess, string[]> = {
  read: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
  // RestoreSecret: writing a name whose secret is scheduled for deletion brings it back.
  write: ['secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue', 'secretsmanager:RestoreSecret'],
  delete: ['secretsmanager:DeleteSecret'],
  // A new value for a secret that exists (a refreshed token), without creating any.
  update: ['secretsmanager:PutSecretValue'],
};

/**
 * Secrets Manager secrets. The platform API key and the dispatch signing secret are
 * generated at deploy; the OAuth client secrets are created with a random placeholder that
 * an operator replaces with the provider's value after deploy (`aws secretsmanager
 * put-secret-value`). Functions receive ARNs (`*_SECRET_ARN`) and never the values.
 * CloudFormation names these four (operators find them by the stack outputs), so a retained
 * secret never blocks the next create. The secrets the functions create at run time are
 * named under `agent-integrations/<stage>/`, the prefix their IAM grants are scoped to.
 */
export class PlatformSecrets extends Construct {
  readonly prefix: string;
  readonly secrets: Record<StackSecret, secretsmanager.Secret>;

  constructor(scope: Construct, id: string, props: PlatformSecretsProps) {
    super(scope, id);
    this.prefix = `agent-integrations/${props.stage}/`;
    const make = (cid: string, description: string) => {
      const secret = new secretsmanager.Secret(this, cid, {
        description: `agent-integrations ${props.stage}: ${description}`,
        generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
        removalPolicy: props.removalPolicy,
      });
      acknowledge(
        secret,
        'AwsSolutions-SMG4',
        'Shared with a party outside AWS (the platform, the agent runtime or the OAuth provider), so a rotation ' +
          'Lambda cannot update the other side; operators rotate by hand (docs/operations.md: the platform key with two keys valid during a rotation).',
      );
      return secret;
    };
    this.secrets = {
      PLATFORM_API_KEY_SECRET_ARN: make(
        'PlatformApiKey',
        'Bearer key of the platform API (generated). During a rotation: "<new>,<old>" (docs/operations.md).',
      ),
      DISPATCH_SIGNING_SECRET_ARN: make(
        'DispatchSigningSecret',
        'HMAC key of X-Signature-256 on events sent to the agent runtime (generated).',
      ),
      GITHUB_CLIENT_SECRET_ARN: make('GithubClientSecret', 'GitHub OAuth app client secret: set its value after deploy.'),
      CONTENTSNARE_CLIENT_SECRET_ARN: make('ContentsnareClientSecret', 'Content Snare OAuth client secret: set its value after deploy.'),
      GITHUB_APP_PRIVATE_KEY_SECRET_ARN: make('GithubAppPrivateKey', 'GitHub App private key (PEM): set its value after deploy.'),
      GITHUB_APP_CLIENT_SECRET_ARN: make('GithubAppClientSecret', 'GitHub App client secret: set its value after deploy.'),
      GITHUB_APP_WEBHOOK_SECRET_ARN: make('GithubAppWebhookSecret', 'GitHub App webhook secret: set its value after deploy.'),
      // Its generated value is no App: the manifest flow writes {"appId","slug","clientId"} here, read by every function
      // whose deploy settings name no App.
      GITHUB_APP_IDENTITY_SECRET_ARN: make(
        'GithubAppIdentity',
        'GitHub App identity {"appId","slug","clientId"}, written by POST /github-app/manifest (the generated value means no App).',
      ),
    };
  }

  /** `<name>` env var = the secret's ARN, and permission to read that one secret. */
  useSecret(f: IntegrationFunction, name: StackSecret): void {
    const secret = this.secrets[name];
    f.setEnv(name, secret.secretArn);
    secret.grantRead(f.role);
  }

  /**
   * `<name>` env var = the secret's ARN, and permission to put a new value into that one secret
   * (and read it back): the GitHub App's manifest flow writes the secrets of the App it makes.
   */
  letWrite(f: IntegrationFunction, name: StackSecret): void {
    this.useSecret(f, name);
    f.allow(actionsFor.update, [this.secrets[name].secretArn]);
  }

  /** SECRET_PREFIX + the given actions on the secrets of one area (`<prefix><area>*`) only. */
  useArea(f: IntegrationFunction, area: SecretArea, access: SecretAccess[]): void {
    f.setEnv('SECRET_PREFIX', this.prefix);
    const arn = `arn:${Aws.PARTITION}:secretsmanager:${Aws.REGION}:${Aws.ACCOUNT_ID}:secret:${this.prefix}${area}*`;
    f.allow(
      access.flatMap((a) => actionsFor[a]),
      [arn],
    );
    acknowledge(
      f.role,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${this.prefix}${area}*]`,
      'Per-connection tokens and per-endpoint webhook secrets are created at run time with generated ids; access is ' +
        `scoped to their name prefix (${this.prefix}${area}); Secrets Manager appends a random suffix to every ARN.`,
    );
  }
}
