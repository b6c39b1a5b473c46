import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { IntegrationFunction } from './integration-function';

export interface WorkQueueProps {
  /** The function's timeout: a work item is hidden for a few of them while a worker has it. */
  workerTimeout: Duration;
  /** Receives before a work item goes to its dead-letter queue. */
  maxReceiveCount: number;
  removalPolicy: RemovalPolicy;
}

/**
 * A queue of work items a scheduled planner sends and workers take (the poller's round), with
 * its own dead-letter queue: a work item is the planner's, never an event, so it is not
 * redriven into dispatch.
 */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(props.workerTimeout.toSeconds() * 2),
      // A round older than this is planned again by a later one anyway.
      retentionPeriod: Duration.hours(1),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
      removalPolicy: props.removalPolicy,
    });
  }

  /** `env` = the queue's URL and permission to send to it (the planner): no receive, no delete. */
  plannedBy(f: IntegrationFunction, env: string): void {
    f.setEnv(env, this.queue.queueUrl);
    f.allow(['sqs:SendMessage', 'sqs:GetQueueAttributes'], [this.queue.queueArn]);
  }

  /** The queue as the function's event source (batches, failed items answered one by one); the event source grants the receive. */
  workedBy(f: IntegrationFunction, source: { batchSize: number; maxConcurrency: number }): void {
    f.fn.addEventSource(
      new SqsEventSource(this.queue, { ...source, maxBatchingWindow: Duration.seconds(1), reportBatchItemFailures: true }),
    );
  }
}
