import type { S3Sender } from '../../shared/adapters/aws/s3-blob-store';
import type { SqsSender } from '../../shared/adapters/aws/sqs-queue';
import type { Config } from '../../shared/config/config';
import { buildAwsCoreContext, type AwsCoreOverrides, type LambdaContext } from '../../shared/wiring/aws-core-context';
import { s3Blobs } from '../../shared/wiring/aws-s3';
import { sqsQueue } from '../../shared/wiring/aws-sqs';

/** Replacements for what `buildAwsContext` would otherwise build. */
export interface AwsContextOverrides extends AwsCoreOverrides {
  sqs?: SqsSender;
  s3?: S3Sender;
}

/**
 * The AppContext on every AWS adapter (DynamoDB, Secrets Manager, SQS, S3), for tests that
 * check the adapters together. Lambda functions build theirs with `buildAwsCoreContext` and only the adapters
 * their role uses (functions/<name>/deps.ts), so they do not load SDK clients they never call.
 */
export function buildAwsContext(config: Config, overrides: AwsContextOverrides = {}): LambdaContext {
  return buildAwsCoreContext(config, { queue: sqsQueue(overrides.sqs), blobs: s3Blobs(overrides.s3) }, overrides);
}
