import { Aws, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { appMetrics, metricNamespace } from './app-metrics';
import { frontDoorMetrics, type HttpFrontDoor } from './http-front-door';
import type { FunctionName, IntegrationFunction } from './integration-function';

export interface OperationsProps {
  stage: string;
  functions: Record<FunctionName, IntegrationFunction>;
  queue: sqs.IQueue;
  /** The dispatch slow lane. */
  slowQueue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  /** Queues of work items a planner sends and workers take (the poller's and the sweep's rounds), each with its dead-letter queue. */
  workQueues?: ReadonlyArray<{ name: string; queue: sqs.IQueue; deadLetterQueue: sqs.IQueue }>;
  /** The HTTP API: its 4xx and 429 answers and the webhook routes' latency. */
  front: HttpFrontDoor;
  /** Alarm notifications go to an SNS topic with this e-mail subscribed, when given. */
  alarmEmail?: string;
  /** Of the topic's key: it goes with the stack when the stage's data does. */
  removalPolicy: RemovalPolicy;
}

const period = Duration.minutes(5);

/**
 * What an operator looks at and is woken by: one dashboard (product metrics from EMF,
 * Lambda errors and latency, queue backlog) and the alarms docs/operations.md has a runbook for.
 */
export class Operations extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly topic?: sns.Topic;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    const { stage, functions: fns } = props;
    const base = `agent-integrations-${stage}`;

    if (props.alarmEmail) {
      // CloudWatch can only publish to an encrypted topic whose key lets it: a customer key.
      const key = new kms.Key(this, 'AlarmTopicKey', {
        enableKeyRotation: true,
        description: `${base} alarm topic encryption`,
        removalPolicy: props.removalPolicy,
        // The shortest wait KMS allows before a key scheduled for deletion is gone.
        pendingWindow: Duration.days(7),
      });
      // No source conditions here: whether CloudWatch's KMS calls through SNS carry them is not
      // documented for alarms, and a wrong guess drops every notification silently. The topic
      // policy (below) decides which alarms may publish.
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          resources: ['*'],
        }),
      );
      this.topic = new sns.Topic(this, 'AlarmTopic', {
        topicName: `${base}-alarms`,
        masterKey: key,
        enforceSSL: true,
      });
      this.topic.addSubscription(new subs.EmailSubscription(props.alarmEmail));
    }

    const dlqDepth = props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' });
    this.alarm('DeadLetters', {
      alarmName: `${base}-dead-letters`,
      alarmDescription: 'Events reached the dead-letter queue: inspect with `npm run dlq -- list`, fix the cause, then redrive.',
      metric: dlqDepth,
      threshold: 1,
      evaluationPeriods: 1,
    });
    const queueAge = props.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' });
    this.alarm('QueueAge', {
      alarmName: `${base}-dispatch-backlog`,
      alarmDescription: 'The oldest undelivered event is over 15 minutes old: the agent runtime is failing or slow.',
      metric: queueAge,
      threshold: 900,
      evaluationPeriods: 3,
    });
    for (const work of props.workQueues ?? []) {
      const id = work.name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
      this.alarm(`${id}Age`, {
        alarmName: `${base}-${work.name}-backlog`,
        alarmDescription: `The oldest ${work.name} item is over 2 minutes old: the workers do not keep up with the rounds, and their work waits longer than an interval.`,
        metric: work.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 120,
        evaluationPeriods: 3,
      });
      this.alarm(`${id}DeadLetters`, {
        alarmName: `${base}-${work.name}-dead-letters`,
        alarmDescription: `${work.name} items failed on every receive: read the worker's log for the source or hook that fails.`,
        metric: work.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 1,
      });
    }
    const slowAge = props.slowQueue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' });
    this.alarm('SlowLaneAge', {
      alarmName: `${base}-dispatch-slow-lane-backlog`,
      alarmDescription: 'The oldest event in the slow lane is over 15 minutes old: the agent runtime answers too slowly, or not at all.',
      metric: slowAge,
      threshold: 900,
      evaluationPeriods: 3,
    });
    // Counted by the dispatch function only (service dimension), once per opening per container.
    const circuitOpened = new cloudwatch.Metric({
      namespace: metricNamespace,
      metricName: appMetrics.dispatchCircuitOpened,
      dimensionsMap: { service: 'dispatch', stage },
      statistic: 'Sum',
      period,
    });
    this.alarm('DispatchCircuit', {
      alarmName: `${base}-dispatch-circuit-open`,
      alarmDescription:
        'The dispatch circuit opened in two 5-minute periods running: most POSTs to the agent runtime fail, or it asks for pauses (Retry-After). Events wait; nothing is lost.',
      metric: circuitOpened,
      threshold: 1,
      evaluationPeriods: 2,
    });
    for (const [name, f] of Object.entries(fns) as [FunctionName, IntegrationFunction][]) {
      this.alarm(`${pascal(name)}ErrorRate`, {
        alarmName: `${base}-${name}-error-rate`,
        alarmDescription: `More than 5% of ${name} invocations failed over 10 minutes: read its log group.`,
        metric: errorRate(f),
        threshold: 5,
        evaluationPeriods: 2,
      });
    }
    this.alarm('IntakeLatency', {
      alarmName: `${base}-webhook-intake-p99`,
      alarmDescription: 'Webhook intake p99 above 5 s: the code host gives up at 10 s and does not retry.',
      metric: fns['webhook-intake'].fn.metricDuration({ period, statistic: 'p99' }),
      threshold: 5000,
      evaluationPeriods: 2,
    });
    this.frontDoorAlarms(base, props.front);
    // Any function throttled: the account's concurrency is used up (a new account has 10), and
    // the intake answers 429/5xx to the code host, which does not retry.
    const throttles = Object.fromEntries(
      (Object.entries(fns) as [FunctionName, IntegrationFunction][]).map(([name, f]) => [
        `t${pascal(name)}`,
        f.fn.metricThrottles({ period: Duration.minutes(1), statistic: 'Sum' }),
      ]),
    );
    this.alarm('Throttles', {
      alarmName: `${base}-throttles`,
      alarmDescription: 'A function was throttled: concurrent executions ran out. See docs/operations.md, "Concurrency".',
      metric: new cloudwatch.MathExpression({
        expression: Object.keys(throttles).join(' + '),
        usingMetrics: throttles,
        period: Duration.minutes(1),
        label: 'throttled invocations',
      }),
      threshold: 1,
      evaluationPeriods: 1,
    });
    // A body refused for its shape is answered 2xx, so the code host shows nothing: should it add
    // a field to an event under a name another event uses, that trigger would stop in silence.
    // Metrics Insights sums the count over its `event` (and `service`) dimension.
    this.alarm('RejectedShape', {
      alarmName: `${base}-webhook-rejected-shape`,
      alarmDescription:
        'Signed webhook deliveries were refused because their body did not fit their event: a trigger may have stopped. The intake logs each at WARN with the event, delivery id and offending keys.',
      metric: new cloudwatch.MathExpression({
        expression: `SELECT SUM(${appMetrics.deliveriesRejectedShape}) FROM SCHEMA("${metricNamespace}", event, service, stage) WHERE stage = '${stage}'`,
        usingMetrics: {},
        period,
        label: 'deliveries refused for their shape',
      }),
      threshold: 1,
      evaluationPeriods: 1,
    });
    this.alarm('SweepFailures', {
      alarmName: `${base}-redelivery-sweep-failures`,
      alarmDescription: 'The redelivery sweep failed twice running: missed webhook deliveries are not being recovered.',
      metric: fns['redelivery-sweep'].fn.metricErrors({ period, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 2,
    });

    if (this.topic) {
      // A topic policy replaces SNS's default one, which let the account's services publish:
      // CloudWatch must be allowed by name, for this account's alarms of this stack only.
      this.topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'CloudWatchAlarmsOfThisStack',
          principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
            ArnLike: { 'aws:SourceArn': this.alarms.map((a) => a.alarmArn) },
          },
        }),
      );
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: base,
      defaultInterval: Duration.hours(6),
    });
    // Schema-free searches: Powertools adds a `service` dimension (and a step may add more),
    // so the graphs match any dimension set of the stage and sum it into one line.
    const search = (name: string) => `SEARCH('Namespace="${metricNamespace}" MetricName="${name}" stage="${stage}"', 'Sum', 300)`;
    const app = (name: string, label: string) =>
      new cloudwatch.MathExpression({ expression: `SUM(${search(name)})`, usingMetrics: {}, label, period });
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8, right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width, height: 6 });
    this.dashboard.addWidgets(
      graph('Webhook deliveries', [
        app(appMetrics.deliveriesAccepted, 'accepted'),
        app(appMetrics.deliveriesRefused, 'refused'),
        app(appMetrics.deliveriesDuplicated, 'duplicated'),
      ]),
      graph('Trigger events', [
        app(appMetrics.eventsDispatched, 'dispatched'),
        app(appMetrics.eventsRetried, 'retried'),
        app(appMetrics.eventsDeadLettered, 'dead-lettered'),
        app(appMetrics.dispatchCircuitOpened, 'circuit opened'),
      ]),
      graph('Tool steps by outcome', [
        // One line per dimension combination: outcome (and tool id, when the step adds it).
        new cloudwatch.MathExpression({ expression: search(appMetrics.toolSteps), usingMetrics: {}, label: '', period }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Rate limits, token refreshes, sweep', [
        app(appMetrics.rateLimitWaits, 'rate-limit waits'),
        app(appMetrics.tokenRefreshes, 'token refreshes'),
        app(appMetrics.sweepRedeliveries, 'sweep redeliveries'),
      ]),
      graph('Dead letters and backlog', [dlqDepth.with({ label: 'dead-letter depth' })], 8, [
        queueAge.with({ label: 'oldest message age (s)' }),
        slowAge.with({ label: 'slow lane: oldest message age (s)' }),
      ]),
      graph(
        'Lambda errors',
        Object.entries(fns).map(([n, f]) => f.fn.metricErrors({ period, label: n })),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Lambda duration p99',
        Object.entries(fns).map(([n, f]) => f.fn.metricDuration({ period, statistic: 'p99', label: n })),
        12,
      ),
      graph(
        'Lambda throttles',
        Object.entries(fns).map(([n, f]) => f.fn.metricThrottles({ period, label: n })),
        12,
      ),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }),
    );
    this.dashboard.addWidgets(
      graph(
        'Front door: 429s',
        [
          props.front.metric(frontDoorMetrics.webhookThrottled, 'Sum', period).with({ label: 'webhook 429s' }),
          props.front.metric(frontDoorMetrics.throttled, 'Sum', period).with({ label: 'all 429s' }),
        ],
        12,
      ),
      graph('Front door: webhook latency p99 (ms)', [props.front.metric(frontDoorMetrics.webhookLatency, 'p99', period)], 12),
    );
  }

  /**
   * The code host waits 10 s for an answer and never retries a delivery answered 429 or not
   * answered in time: each of these is a delivery only the sweep can bring back.
   */
  private frontDoorAlarms(base: string, front: HttpFrontDoor): void {
    this.alarm('WebhookThrottled', {
      alarmName: `${base}-webhook-throttled`,
      alarmDescription:
        'The HTTP API answered a webhook delivery 429 (its route throttle): the code host does not retry it; the redelivery sweep asks for it again.',
      metric: front.metric(frontDoorMetrics.webhookThrottled, 'Sum'),
      threshold: 1,
      evaluationPeriods: 1,
    });
    const { errors, requests } = front.clientErrors(period);
    this.alarm('Http4xx', {
      alarmName: `${base}-http-4xx`,
      alarmDescription:
        'At least 50 requests, and 10% or more of all, were answered 4xx (429s of the route throttles included) in two 5-minute periods running.',
      metric: new cloudwatch.MathExpression({
        expression: 'IF(errors >= 50, 100 * errors / MAX([errors, requests]), 0)',
        usingMetrics: { errors, requests },
        period,
        label: '4xx %',
      }),
      threshold: 10,
      evaluationPeriods: 2,
    });
    this.alarm('WebhookLatency', {
      alarmName: `${base}-webhook-latency-p99`,
      alarmDescription:
        'Webhook requests p99 above 8 s at the front door (cold starts and the gateway included): the code host gives up at 10 s.',
      metric: front.metric(frontDoorMetrics.webhookLatency, 'p99', period),
      threshold: 8000,
      evaluationPeriods: 1,
    });
  }

  private alarm(id: string, p: Omit<cloudwatch.AlarmProps, 'comparisonOperator' | 'treatMissingData'>): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      ...p,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (this.topic) {
      alarm.addAlarmAction(new actions.SnsAction(this.topic));
      alarm.addOkAction(new actions.SnsAction(this.topic));
    }
    this.alarms.push(alarm);
  }
}

/** Percent of invocations that failed; MAX keeps it defined when there were none. */
function errorRate(f: IntegrationFunction): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: '100 * errors / MAX([errors, invocations])',
    usingMetrics: {
      errors: f.fn.metricErrors({ period, statistic: 'Sum' }),
      invocations: f.fn.metricInvocations({ period, statistic: 'Sum' }),
    },
    period,
    label: 'error %',
  });
}

function pascal(s: string): string {
  return s.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
}
