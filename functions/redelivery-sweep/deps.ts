import { sqsQueue } from '../../shared/wiring/aws-sqs';
import { lambdaObservability } from '../../shared/observability/lambda-wrapper';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';

/** This function's name: the `service` of its log lines and metrics. */
export const role = 'redelivery-sweep';

/**
 * Its logger and metrics (LOG_LEVEL, STAGE), shared by the handler's wrapper and the context.
 * This file is the function's only reader of the environment.
 */
export const observability = lambdaObservability(role, process.env);

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB and
 * Secrets Manager, and SQS for its work queue; no others, for a short cold start.
 */
export const appContext = lambdaAppContext(observability, process.env);

/**
 * The sweep's work queue (SWEEP_WORK_QUEUE_URL): the schedule plans a round onto it, one item
 * per hook, and its event source hands the items back to this function. Unset: one whole round per tick.
 */
export const sweepWorkQueue = process.env.SWEEP_WORK_QUEUE_URL ? sqsQueue()(process.env.SWEEP_WORK_QUEUE_URL) : undefined;
