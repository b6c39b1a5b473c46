import { lambdaObservability } from '../../shared/observability/lambda-wrapper';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';
import { s3Blobs } from '../../shared/wiring/aws-s3';
import { sqsQueueOnFirstUse } from '../../shared/wiring/aws-sqs-on-first-use';

export { loadProviderExamples } from '../../shared/wiring/provider-examples';

/** This function's name: the `service` of its log lines and metrics. */
export const role = 'platform-api';

/**
 * Its logger and metrics (LOG_LEVEL, STAGE), shared by the handler's wrapper and the context.
 * This file is the function's only reader of the environment.
 */
export const observability = lambdaObservability(role, process.env);

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB and Secrets
 * Manager; SQS and S3 for an event's replay (both created on first use, so the other routes'
 * cold start does not pay for them).
 */
export const appContext = lambdaAppContext(observability, process.env, { queue: sqsQueueOnFirstUse(), blobs: s3Blobs() });
