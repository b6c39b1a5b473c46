import { DynamoStore } from '../adapters/aws/dynamo-store';
import { S3BlobStore, createS3Client, type S3Sender } from '../adapters/aws/s3-blob-store';
import { createSecretsManagerClient, readSecretString, type SecretsManagerSender } from '../adapters/aws/secrets-manager-reader';
import { SecretsManagerStore } from '../adapters/aws/secrets-manager-store';
import { SqsQueue, createSqsClient, type SqsSender } from '../adapters/aws/sqs-queue';
import type { Config } from '../config/config';
import { optionalSecret, requiredSecret } from '../config/secret-config';
import { RefreshingTokenProvider } from '../connections/refreshing-token-provider';
import { AppError } from '../domain/errors';
import { createJsonLogger, type Logger } from '../observability/logger';
import { noMetrics, type Metrics } from '../observability/metrics';
import { systemClock, type BlobStore, type Clock, type Fetch, type Queue, type Store } from '../ports';
import type { AppContext } from './context';

/** Replacements for what `buildAwsContext` would otherwise build (tests, or a function's own choices). */
export interface AwsContextOverrides {
  store?: Store;
  sqs?: SqsSender;
  secretsManager?: SecretsManagerSender;
  s3?: S3Sender;
  clock?: Clock;
  fetch?: Fetch;
  logger?: Logger;
  metrics?: Metrics;
  /** `service` attribute of every log line (the function's role). */
  service?: string;
}

/**
 * The AppContext of a Lambda function on the AWS adapters. Pure: it builds new clients on
 * every call, so a function's `deps.ts` calls it once at module top (once per cold start).
 * Resources the function was not given (no QUEUE_URL, no BLOB_BUCKET) answer a clear
 * `not_configured` error when used, so functions that never use them need not have them.
 */
export function buildAwsContext(config: Config, overrides: AwsContextOverrides = {}): AppContext {
  const clock = overrides.clock ?? systemClock;
  const secretsManager = overrides.secretsManager ?? createSecretsManagerClient();
  const secrets = new SecretsManagerStore(secretsManager, config.secretPrefix, clock);
  const byArn = (arn: string) => readSecretString(secretsManager, arn);
  const github = optionalSecret(
    { value: config.github.clientSecret, arn: config.github.clientSecretArn, env: { value: 'GITHUB_CLIENT_SECRET', arn: 'GITHUB_CLIENT_SECRET_ARN' } },
    byArn,
  );
  const contentsnare = optionalSecret(
    { value: config.contentsnare.clientSecret, arn: config.contentsnare.clientSecretArn, env: { value: 'CONTENTSNARE_CLIENT_SECRET', arn: 'CONTENTSNARE_CLIENT_SECRET_ARN' } },
    byArn,
  );
  const base = {
    config,
    store: overrides.store ?? DynamoStore.create(config.tableName, clock),
    queue: config.queueUrl ? new SqsQueue(overrides.sqs ?? createSqsClient(), config.queueUrl) : unconfiguredQueue,
    secrets,
    blobs: config.blobBucket ? new S3BlobStore(overrides.s3 ?? createS3Client(), config.blobBucket) : unconfiguredBlobs,
    clock,
    fetch: overrides.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    logger: overrides.logger ?? createJsonLogger({ level: config.logLevel, service: overrides.service }),
    metrics: overrides.metrics ?? noMetrics,
    platformApiKey: requiredSecret(
      { value: config.platformApiKey, arn: config.platformApiKeySecretArn, env: { value: 'PLATFORM_API_KEY', arn: 'PLATFORM_API_KEY_SECRET_ARN' } },
      byArn,
    ),
    dispatchSigningSecret: requiredSecret(
      { value: config.dispatchSigningSecret, arn: config.dispatchSigningSecretArn, env: { value: 'DISPATCH_SIGNING_SECRET', arn: 'DISPATCH_SIGNING_SECRET_ARN' } },
      byArn,
    ),
    oauthClientSecret: (provider: 'github' | 'contentsnare') => (provider === 'github' ? github() : contentsnare()),
  };
  return { ...base, tokens: new RefreshingTokenProvider(base) };
}

const unconfiguredQueue: Queue = {
  sendBatch: () => Promise.reject(new AppError('not_configured', 'QUEUE_URL is not set for this function, so it cannot enqueue')),
};

const unconfiguredBlobs: BlobStore = {
  put: () => Promise.reject(blobError()),
  get: () => Promise.reject(blobError()),
  delete: () => Promise.reject(blobError()),
};

function blobError(): AppError {
  return new AppError('not_configured', 'BLOB_BUCKET is not set for this function, so large bodies cannot be stored aside');
}
