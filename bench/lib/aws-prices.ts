/**
 * AWS list prices, us-east-1, as the public price pages gave them in 2025 (DynamoDB on-demand
 * after its price cut of 2024-11-01). Beyond free tiers, at the first volume tier. A price
 * change makes the cost model's dollars wrong, not its counts: docs/performance.md, "Cost".
 */
export const awsPrices = {
  /** https://aws.amazon.com/api-gateway/pricing/ HTTP APIs, first 300 million requests a month, per 512 KB. */
  httpApiPerMillionRequests: 1.0,
  /** https://aws.amazon.com/lambda/pricing/ requests. */
  lambdaPerMillionRequests: 0.2,
  /** https://aws.amazon.com/lambda/pricing/ Arm (arm64), first 7.5 billion GB-s a month. */
  lambdaArmPerGbSecond: 0.0000133334,
  /** https://aws.amazon.com/sqs/pricing/ standard queues, per million requests (each 64 KB of a request counts as one). */
  sqsPerMillionRequests: 0.4,
  /** https://aws.amazon.com/dynamodb/pricing/on-demand/ standard table class. */
  dynamoPerMillionWriteUnits: 0.625,
  dynamoPerMillionReadUnits: 0.125,
  /** https://aws.amazon.com/secrets-manager/pricing/ */
  secretPerMonth: 0.4,
  secretsPerTenThousandCalls: 0.05,
  /** https://aws.amazon.com/kms/pricing/ a customer managed key, and symmetric requests. */
  kmsKeyPerMonth: 1.0,
  kmsPerTenThousandRequests: 0.03,
  /** https://aws.amazon.com/s3/pricing/ S3 Standard. */
  s3PutPerThousand: 0.005,
  s3GetPerThousand: 0.0004,
  /** https://aws.amazon.com/cloudwatch/pricing/ Logs standard ingestion, per GB. */
  logsPerGbIngested: 0.5,
} as const;

/** The memory every function is deployed with (infra/constructs/integration-function.ts). */
export const functionMemoryGb = 0.5;
