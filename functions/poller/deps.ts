import { s3Blobs } from '../../shared/wiring/aws-s3';
import { sqsQueue } from '../../shared/wiring/aws-sqs';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';

/** This function's name: the `service` of its log lines and metrics, and its handler wrapper's. */
export const role = 'poller';

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB, Secrets
 * Manager, SQS (new items are enqueued) and S3 (bodies stored aside, loaded on first use);
 * no others, for a short cold start.
 */
export const appContext = lambdaAppContext(role, { queue: sqsQueue(), blobs: s3Blobs() });
