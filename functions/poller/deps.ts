import { s3Blobs } from '../../shared/wiring/aws-s3';
import { sqsQueue } from '../../shared/wiring/aws-sqs';
import { lambdaObservability } from '../../shared/observability/lambda-wrapper';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';

/** This function's name: the `service` of its log lines and metrics. */
export const role = 'poller';

/**
 * Its logger and metrics (LOG_LEVEL, STAGE), shared by the handler's wrapper and the context.
 * This file is the function's only reader of the environment.
 */
export const observability = lambdaObservability(role, process.env);

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB, Secrets
 * Manager, SQS (new items are enqueued) and S3 (bodies stored aside, loaded on first use);
 * no others, for a short cold start.
 */
export const appContext = lambdaAppContext(observability, process.env, { queue: sqsQueue(), blobs: s3Blobs() });

/**
 * The polling work queue (POLL_WORK_QUEUE_URL): the schedule plans a round onto it and its
 * event source hands the work items back to this function. Unset: one whole round per tick.
 */
export const pollWorkQueue = process.env.POLL_WORK_QUEUE_URL ? sqsQueue()(process.env.POLL_WORK_QUEUE_URL) : undefined;
