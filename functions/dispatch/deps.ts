import { CircuitBoard } from '../../shared/dispatch/circuit-board';
import { s3Blobs } from '../../shared/wiring/aws-s3';
import { sqsQueue } from '../../shared/wiring/aws-sqs';
import { lambdaObservability } from '../../shared/observability/lambda-wrapper';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';
import { systemClock } from '../../shared/ports';

/** This function's name: the `service` of its log lines and metrics. */
export const role = 'dispatch';

/**
 * Its logger and metrics (LOG_LEVEL, STAGE), shared by the handler's wrapper and the context.
 * This file is the function's only reader of the environment.
 */
export const observability = lambdaObservability(role, process.env);

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB,
 * Secrets Manager, SQS (visibility, throttled re-enqueue, the slow lane) and S3 (claim-check
 * bodies, loaded on first use); no others.
 */
export const appContext = lambdaAppContext(observability, process.env, { queue: sqsQueue(), blobs: s3Blobs() });

/** The providers' jobs and follow-ups, worked beside the trigger events. */
export { providerWork } from '../../shared/wiring/provider-work';

/** The slow lane's queue (SLOW_QUEUE_URL): events whose POST went unanswered on the main lane. Unset: one lane. */
export const slowQueueUrl = process.env.SLOW_QUEUE_URL || undefined;
export const slowQueue = slowQueueUrl ? sqsQueue()(slowQueueUrl) : undefined;

/**
 * The dead-letter queue (DEAD_LETTER_QUEUE_URL), where an event out of tries is sent: its
 * retries wait as delayed copies, whose receive counts the queues' redrive never sees add up.
 * Unset: failed events wait in place and the redrive dead-letters them.
 */
export const deadLetterQueue = process.env.DEAD_LETTER_QUEUE_URL ? sqsQueue()(process.env.DEAD_LETTER_QUEUE_URL) : undefined;

/**
 * The container's circuits over the agent runtime, one per runtime and agent, shared by its
 * invocations and both lanes. Per container, not shared through the table: see
 * docs/reliability.md ("The circuit").
 */
export const circuits = new CircuitBoard(systemClock, undefined, (s, key) => {
  observability.metrics.count('dispatch_circuit_open');
  observability.logger.warn('agent runtime circuit opened: its events are deferred until a probe is answered', {
    circuit: key,
    reason: s.reason,
    openUntil: s.openUntil === undefined ? undefined : new Date(s.openUntil).toISOString(),
  });
});
