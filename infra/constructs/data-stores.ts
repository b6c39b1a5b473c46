import { Aws, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import type { TableAccess } from '../../shared/store/table-access';
import { tableDesign, tableIndexes } from '../../shared/store/table-design';
import type { IntegrationFunction } from './integration-function';
import { acknowledge, arnRef } from './nag';
import { stackUniqueName } from './unique-name';

export interface DataStoresProps {
  stage: string;
  /** RETAIN_ON_UPDATE_OR_DELETE keeps data without blocking a first deploy's rollback; DESTROY when the stage's data may go. */
  removalPolicy: RemovalPolicy;
  /** The table refuses deletion (destroyData=false): the setting that means "keep the data". */
  deletionProtection: boolean;
  /** The dispatch consumer's timeout: the queue's visibility is six times it (AWS guidance). */
  dispatchTimeout: Duration;
}

/**
 * The stateful part of the stack: the single table, the dispatch queue and its slow lane
 * (events whose POST went unanswered for 2 s) with their dead-letter queue, and the claim-check bucket for bodies too large for a queue message. All encrypted
 * at rest, TLS-only, and retained on stack deletion unless the stage opts out.
 * CloudFormation names them (the functions get the names through TABLE_NAME, QUEUE_URL,
 * BLOB_BUCKET), so a retained one never blocks the next create; see unique-name.ts for the
 * one exception.
 */
export class DataStores extends Construct {
  readonly table: dynamodb.Table;
  readonly queue: sqs.Queue;
  /** The slow lane: events whose POST the agent runtime did not answer within the main lane's limit. */
  readonly slowQueue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: DataStoresProps) {
    super(scope, id);
    const str = (name: string) => ({ name, type: dynamodb.AttributeType.STRING });

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: str(tableDesign.partitionKey),
      sortKey: str(tableDesign.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableDesign.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    // In the order they were added: a deployed table takes one new index per update.
    for (const gsi of tableIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.name,
        partitionKey: str(gsi.partitionKey),
        sortKey: str(gsi.sortKey),
        ...(gsi.projection === 'all'
          ? { projectionType: dynamodb.ProjectionType.ALL }
          : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...gsi.projection] }),
      });
    }

    // The dispatch queues' names are known before they exist, so the dead-letter queue can name
    // them as its only sources (a reference to a queue would be a cycle: the queue names its DLQ).
    const queueName = stackUniqueName(`agent-integrations-${props.stage}-dispatch`);
    const slowQueueName = stackUniqueName(`agent-integrations-${props.stage}-dispatch-slow`);
    const byName = (id: string, name: string) =>
      sqs.Queue.fromQueueArn(this, id, `arn:${Aws.PARTITION}:sqs:${Aws.REGION}:${Aws.ACCOUNT_ID}:${name}`);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
      redriveAllowPolicy: {
        redrivePermission: sqs.RedrivePermission.BY_QUEUE,
        sourceQueues: [byName('DispatchQueueByName', queueName), byName('SlowQueueByName', slowQueueName)],
      },
    });
    // Both lanes alike, with one dead-letter queue, so an operator looks in one place and a
    // redrive sends an event back through the main lane.
    const lane = (id: string, name: string) =>
      new sqs.Queue(this, id, {
        queueName: name,
        visibilityTimeout: Duration.seconds(props.dispatchTimeout.toSeconds() * 6),
        retentionPeriod: Duration.days(4),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        // The same count the dispatch code uses to tell a message's last receive (events_dead_lettered).
        deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount },
        removalPolicy: props.removalPolicy,
      });
    this.queue = lane('DispatchQueue', queueName);
    this.slowQueue = lane('SlowQueue', slowQueueName);

    this.bucket = new s3.Bucket(this, 'PayloadBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // A payload is needed until its event is delivered or dead-lettered (DLQ keeps 14 days).
      lifecycleRules: [{ expiration: Duration.days(15), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: props.removalPolicy,
      // A bucket that holds objects cannot be deleted: when the data may go, empty it first.
      autoDeleteObjects: props.removalPolicy === RemovalPolicy.DESTROY,
    });
    acknowledge(
      this.bucket,
      'AwsSolutions-S1',
      "Claim-check bodies are written and read only by this stack's functions under IAM; the bucket is private, " +
        'TLS-only and short-lived. CloudTrail data events can audit it; an access-log bucket would add cost and its own findings.',
    );
  }

  /**
   * TABLE_NAME + GetItem/BatchGetItem/Query (table and its indexes; BatchGetItem is the Store's
   * getAll: the summaries of a batch's events read together); with `readWrite`, PutItem/UpdateItem/DeleteItem
   * and BatchWriteItem (the Store's putAll: done marks written together) too. Never Scan.
   * With `scope` (shared/store/table-access.ts), every statement carries a `dynamodb:LeadingKeys`
   * condition: the table's item actions its `table` patterns, a Query on an index that index's
   * patterns (IAM checks the index's partition key there), and an index it does not list is not
   * granted at all.
   */
  useTable(f: IntegrationFunction, access: 'read' | 'readWrite', scope?: TableAccess): void {
    const t = this.table.tableArn;
    const indexArn = (n: string) => `${t}/index/${n}`;
    f.setEnv('TABLE_NAME', this.table.tableName);
    const reads = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
    const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    if (!scope) {
      f.allow(reads, [t, ...tableIndexes.map((ix) => indexArn(ix.name))]);
      if (access === 'readWrite') f.allow(writes, [t]);
      return;
    }
    // ForAllValues: every leading key the request names must match one pattern. Every item
    // action granted here takes the condition (BatchGetItem and BatchWriteItem check each item's key); Scan
    // would not, and no role has it.
    const leading = (patterns: readonly string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] } });
    f.allow(reads, [t], leading(scope.table));
    for (const index of tableIndexes.map((ix) => ix.name)) {
      const patterns = scope[index];
      if (patterns) f.allow(['dynamodb:Query'], [indexArn(index)], leading(patterns));
    }
    if (access === 'readWrite') f.allow(writes, [t], leading(scope.table));
  }

  /** QUEUE_URL + permission to send to the dispatch queue (no receive, no delete). */
  sendToDispatchQueue(f: IntegrationFunction): void {
    f.setEnv('QUEUE_URL', this.queue.queueUrl);
    f.allow(['sqs:SendMessage', 'sqs:GetQueueAttributes'], [this.queue.queueArn]);
  }

  /** SLOW_QUEUE_URL + permission to send to the slow lane (the dispatch consumer moves unanswered events there). */
  sendToSlowLane(f: IntegrationFunction): void {
    f.setEnv('SLOW_QUEUE_URL', this.slowQueue.queueUrl);
    f.allow(['sqs:SendMessage', 'sqs:GetQueueAttributes'], [this.slowQueue.queueArn]);
  }

  /**
   * DEAD_LETTER_QUEUE_URL + permission to send to the dead-letter queue: the dispatch consumer
   * sends an event there after its last try, since its retries wait as delayed copies whose
   * receive counts the redrive policy never sees add up.
   */
  sendToDeadLetters(f: IntegrationFunction): void {
    f.setEnv('DEAD_LETTER_QUEUE_URL', this.deadLetterQueue.queueUrl);
    f.allow(['sqs:SendMessage', 'sqs:GetQueueAttributes'], [this.deadLetterQueue.queueArn]);
  }

  /**
   * BLOB_BUCKET + `put` (the producer) or `consume`: read, then delete once delivered; with
   * ListBucket so a missing object answers 404 (NoSuchKey) rather than 403.
   */
  useBlobs(f: IntegrationFunction, access: 'put' | 'consume' | 'replay'): void {
    f.setEnv('BLOB_BUCKET', this.bucket.bucketName);
    if (access === 'put') f.allow(['s3:PutObject'], [this.bucket.arnForObjects('*')]);
    // A replay reads the body it replays and may store the new event's aside; it deletes nothing.
    else if (access === 'replay') f.allow(['s3:GetObject', 's3:PutObject'], [this.bucket.arnForObjects('*')]);
    else {
      f.allow(['s3:GetObject', 's3:DeleteObject'], [this.bucket.arnForObjects('*')]);
      f.allow(['s3:ListBucket'], [this.bucket.bucketArn]);
    }
    acknowledge(
      f.role,
      `AwsSolutions-IAM5[Resource::${arnRef(this.bucket)}/*]`,
      'Claim-check object keys are generated per delivery; access is limited to the objects of this one bucket.',
    );
  }
}
