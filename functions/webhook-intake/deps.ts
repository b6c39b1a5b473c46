import { s3Blobs } from '../../shared/wiring/aws-s3';
import { sqsQueue } from '../../shared/wiring/aws-sqs';
import { lambdaObservability } from '../../shared/observability/lambda-wrapper';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';
export { providerWebhooks } from '../../shared/wiring/provider-intake';

/** This function's name: the `service` of its log lines and metrics. */
export const role = 'webhook-intake';

/**
 * Its logger and metrics (LOG_LEVEL, STAGE), shared by the handler's wrapper and the context.
 * This file is the function's only reader of the environment.
 */
export const observability = lambdaObservability(role, process.env);

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB,
 * Secrets Manager, SQS (enqueue) and S3 (bodies stored aside, loaded on first use); no others,
 * for a short cold start.
 */
export const appContext = lambdaAppContext(observability, process.env, { queue: sqsQueue(), blobs: s3Blobs() });
