import { DynamoStore } from '../adapters/aws/dynamo-store';
import { createSecretsManagerClient, readSecretString, type SecretsManagerSender } from '../adapters/aws/secrets-manager-reader';
import { secretsManagerAppKeeper } from '../adapters/aws/secrets-manager-app-keeper';
import { SecretsManagerStore } from '../adapters/aws/secrets-manager-store';
import { movingLegacyTokenNames } from '../store/legacy-token-names';
import type { Config, GitHubAppConfig } from '../config/config';
import { platformKeyMaxAgeMs } from '../config/platform-keys';
import { optionalSecret, requiredSecret } from '../config/secret-config';
import { RefreshingTokenProvider } from '../oauth/refreshing-token-provider';
import { AppAwareTokenProvider } from '../providers/github/app/app-token-provider';
import { InstallationTokens } from '../providers/github/app/installation-tokens';
import { AppError } from '../domain/errors';
import { outboundFetch } from '../http/guarded-fetch';
import { createJsonLogger, type Logger } from '../observability/logger';
import { noMetrics, type Metrics } from '../observability/metrics';
import {
  realSleep,
  systemClock,
  type BlobStore,
  type Clock,
  type ConsumerQueue,
  type Fetch,
  type Queue,
  type Sleep,
  type Store,
} from '../ports';
import type { AppContext, GitHubAppSecretName } from '../ports/app-context';
import type { TokenSealer } from '../ports/token-sealer';
import type { Provider } from '../domain/model';
import { providerRegistry } from './providers';
import { kmsSealerOnFirstUse } from './aws-kms-on-first-use';

/**
 * The AWS resources only some functions use, each behind its own module
 * (shared/wiring/aws-sqs.ts, shared/wiring/aws-s3.ts) so a function imports only the SDK clients
 * it needs: every client package costs tens of milliseconds of cold start.
 */
export interface AwsAdapters {
  /** The dispatch queue at QUEUE_URL (SQS): functions that enqueue or consume. */
  queue?: (queueUrl: string) => LambdaQueue;
  /** The claim-check bucket BLOB_BUCKET (S3): functions that store bodies aside or read them back. */
  blobs?: (bucket: string) => BlobStore;
}

/** The queue of a Lambda function: producers send to it, the consumer (dispatch) postpones a message in flight. SQS does both. */
export type LambdaQueue = Queue & ConsumerQueue;

/** A Lambda function's context: the AppContext, with a queue the consumer can postpone messages on (typed, not checked at run time). */
export type LambdaContext = AppContext & { queue: LambdaQueue };

/** Replacements for what the builder would otherwise make (tests, or a function's own choices). */
export interface AwsCoreOverrides {
  store?: Store;
  secretsManager?: SecretsManagerSender;
  /** The installation tokens' sealer; by default KMS under KMS_KEY_ARN, its client loaded on first use. */
  tokenSealer?: TokenSealer;
  clock?: Clock;
  sleep?: Sleep;
  fetch?: Fetch;
  logger?: Logger;
  metrics?: Metrics;
  /** `service` attribute of every log line (the function's role), when no logger is given. */
  service?: string;
}

type SecretByArn = (arn: string) => Promise<string | undefined>;

/** The OAuth apps' client secrets, each from its value or its secret's ARN, read once per container. */
function oauthClientSecrets(config: Config, byArn: SecretByArn) {
  const github = optionalSecret(
    {
      value: config.github.clientSecret,
      arn: config.github.clientSecretArn,
      env: { value: 'GITHUB_CLIENT_SECRET', arn: 'GITHUB_CLIENT_SECRET_ARN' },
    },
    byArn,
  );
  const contentsnare = optionalSecret(
    {
      value: config.contentsnare.clientSecret,
      arn: config.contentsnare.clientSecretArn,
      env: { value: 'CONTENTSNARE_CLIENT_SECRET', arn: 'CONTENTSNARE_CLIENT_SECRET_ARN' },
    },
    byArn,
  );
  return (provider: Provider) => ({ github, contentsnare })[provider]();
}

type AppSecretReaders = Record<GitHubAppSecretName, () => Promise<string | undefined>>;

/** The secrets of one App, each read once per container (the private key at the first mint, never logged). */
function githubAppSecrets(app: GitHubAppConfig, byArn: SecretByArn): AppSecretReaders {
  return {
    privateKey: optionalSecret(
      {
        value: app.privateKey,
        arn: app.privateKeySecretArn,
        env: { value: 'GITHUB_APP_PRIVATE_KEY', arn: 'GITHUB_APP_PRIVATE_KEY_SECRET_ARN' },
      },
      byArn,
    ),
    clientSecret: optionalSecret(
      {
        value: app.clientSecret,
        arn: app.clientSecretArn,
        env: { value: 'GITHUB_APP_CLIENT_SECRET', arn: 'GITHUB_APP_CLIENT_SECRET_ARN' },
      },
      byArn,
    ),
    webhookSecret: optionalSecret(
      {
        value: app.webhookSecret,
        arn: app.webhookSecretArn,
        env: { value: 'GITHUB_APP_WEBHOOK_SECRET', arn: 'GITHUB_APP_WEBHOOK_SECRET_ARN' },
      },
      byArn,
    ),
  };
}

/**
 * The secret of the App in use now (`config.github.app`, read at each call: the App the manifest
 * flow or the identity secret put in use replaces it). Each App object has readers of its own, so
 * a replaced App's cached key or webhook secret is never used for the new one.
 */
function currentAppSecret(config: Config, byArn: SecretByArn): (name: GitHubAppSecretName) => Promise<string | undefined> {
  const readers = new WeakMap<GitHubAppConfig, AppSecretReaders>();
  return (name) => {
    const app = config.github.app;
    if (!app) return Promise.resolve(undefined);
    let own = readers.get(app);
    if (!own) {
      own = githubAppSecrets(app, byArn);
      readers.set(app, own);
    }
    return own[name]();
  };
}

/**
 * The AppContext of a Lambda function on DynamoDB and Secrets Manager, which every function
 * uses, plus the `adapters` its role needs. Pure: it builds new clients on every call, so a
 * function's `deps.ts` calls it once per container. A resource the function was not given
 * (no QUEUE_URL, no BLOB_BUCKET, or no adapter for it) answers a clear `not_configured`
 * error when used, so functions that never use it need neither the setting nor the client.
 */
export function buildAwsCoreContext(config: Config, adapters: AwsAdapters = {}, overrides: AwsCoreOverrides = {}): LambdaContext {
  const clock = overrides.clock ?? systemClock;
  const secretsManager = overrides.secretsManager ?? createSecretsManagerClient();
  const stored = new SecretsManagerStore(secretsManager, config.secretPrefix, clock);
  const secrets = config.secretLegacyTokenNames === 'move' ? movingLegacyTokenNames(stored) : stored;
  const byArn = (arn: string) => readSecretString(secretsManager, arn);
  const oauthClientSecret = oauthClientSecrets(config, byArn);
  // Before any refresh: whether the deploy settings themselves name an App.
  const deploySettingsNameApp = config.github.app !== undefined;
  const base = {
    config,
    store: overrides.store ?? DynamoStore.create(config.tableName, clock),
    queue: config.queueUrl && adapters.queue ? adapters.queue(config.queueUrl) : unconfiguredQueue(config.queueUrl !== undefined),
    secrets,
    blobs: config.blobBucket && adapters.blobs ? adapters.blobs(config.blobBucket) : unconfiguredBlobs(config.blobBucket !== undefined),
    clock,
    sleep: overrides.sleep ?? realSleep,
    // Caller-chosen hosts (enterprise apiBaseUrl) checked by resolved address at connect time; no loopback on AWS.
    fetch: overrides.fetch ?? outboundFetch(config, false),
    logger: overrides.logger ?? createJsonLogger({ level: config.logLevel, service: overrides.service }),
    metrics: overrides.metrics ?? noMetrics,
    // Read again every 5 minutes: a rotation ("<new>,<old>" put in the secret) reaches every
    // warm container within that time (docs/operations.md, "Rotate the platform key").
    platformApiKey: requiredSecret(
      {
        value: config.platformApiKey,
        arn: config.platformApiKeySecretArn,
        env: { value: 'PLATFORM_API_KEY', arn: 'PLATFORM_API_KEY_SECRET_ARN' },
      },
      byArn,
      { maxAgeMs: platformKeyMaxAgeMs, now: () => clock.now() },
    ),
    dispatchSigningSecret: requiredSecret(
      {
        value: config.dispatchSigningSecret,
        arn: config.dispatchSigningSecretArn,
        env: { value: 'DISPATCH_SIGNING_SECRET', arn: 'DISPATCH_SIGNING_SECRET_ARN' },
      },
      byArn,
    ),
    oauthClientSecret,
    githubAppSecret: currentAppSecret(config, byArn),
    keepGithubApp: secretsManagerAppKeeper(secretsManager, config.github.appSecretArns ?? {}, {
      github: config.github,
      deploySettingsNameApp,
    }),
    providers: providerRegistry,
  } satisfies Omit<AppContext, 'tokens'>;
  const installations = new InstallationTokens({ ...base, sealer: overrides.tokenSealer ?? kmsSealerOnFirstUse(config.kmsKeyArn) });
  return { ...base, tokens: new AppAwareTokenProvider(new RefreshingTokenProvider(base), installations) };
}

function unconfiguredQueue(urlSet: boolean): LambdaQueue {
  const why = urlSet ? 'this function is built without the queue adapter' : 'QUEUE_URL is not set for this function';
  return {
    sendBatch: () => Promise.reject(new AppError('not_configured', `${why}, so it cannot enqueue`)),
    changeVisibility: () => Promise.reject(new AppError('not_configured', `${why}, so it cannot postpone a message`)),
  };
}

function unconfiguredBlobs(bucketSet: boolean): BlobStore {
  const why = bucketSet ? 'this function is built without the blob adapter' : 'BLOB_BUCKET is not set for this function';
  const fail = () => Promise.reject(new AppError('not_configured', `${why}, so large bodies cannot be stored aside`));
  return { put: fail, get: fail, delete: fail };
}
