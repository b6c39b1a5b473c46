import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionBuildOptions } from '../../infra/bundling/esbuild-options';
import { type Synthesized, synthStack } from './synth-stack';

/**
 * Deploy safety, checked on the templates of the stages docs/operations.md documents (`dev`, the
 * default, and `prod` with its alarm e-mail) plus a dev stage that deletes its data: a
 * first deploy that fails can be retried, the alarms reach someone, a dispatch backlog
 * cannot take the intake's concurrency, and `cdk destroy` works with and without data.
 */
type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
};

const documented: Record<string, Record<string, unknown>> = {
  dev: {},
  prod: { stage: 'prod', alarmEmail: 'oncall@example.com', agentRuntimeUrl: 'https://agents.example.com/events' },
};
const stacks: Record<string, Synthesized> = {};
let disposable: Synthesized;
const resourcesOf = (s: Synthesized) => s.template.toJSON().Resources as Record<string, Resource>;
const ofType = (s: Synthesized, type: string) => Object.entries(resourcesOf(s)).filter(([, r]) => r.Type === type);

/** What holds data or names a thing an operator keeps: retained unless the stage says destroyData. */
const stateful = ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup'];
/** The property that fixes each one's physical name. */
const nameKey: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
};

beforeAll(() => {
  for (const [stage, context] of Object.entries(documented)) stacks[stage] = synthStack(context);
  disposable = synthStack({ stage: 'sandbox', destroyData: 'true', alarmEmail: 'dev@example.com' });
}, 300_000); // three synths: minutes on a loaded machine

describe.each(Object.keys(documented))('the documented %s stage', (stage) => {
  const s = () => stacks[stage]!;

  it('runs every function on nodejs24.x, and bundles for Node 24', () => {
    const fns = ofType(s(), 'AWS::Lambda::Function').filter(([, r]) => /^agent-integrations-/.test(r.Properties.FunctionName ?? ''));
    expect(fns).toHaveLength(7);
    for (const [, r] of fns) expect(r.Properties.Runtime).toBe('nodejs24.x');
    expect(functionBuildOptions('in.ts', 'out').target).toBe('node24');
  });

  it('retains data on update and delete but not when the first create rolls back, and names nothing it retains by a fixed name', () => {
    const kept = Object.entries(resourcesOf(s())).filter(([, r]) => stateful.includes(r.Type));
    expect(kept.length).toBeGreaterThanOrEqual(14);
    for (const [id, r] of kept) {
      expect(r.DeletionPolicy, id).toBe('RetainExceptOnCreate');
      expect(r.UpdateReplacePolicy, id).toBe('Retain');
      // A fixed name survives a rollback or `cdk destroy` and makes the next create fail with
      // "already exists"; a name is only fine when it is unique to this stack's creation.
      const name = r.Properties[nameKey[r.Type]!];
      if (name !== undefined) expect(JSON.stringify(name), id).toContain('AWS::StackId');
    }
    const [, table] = ofType(s(), 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
  });

  it('bounds each dispatch lane to 2 concurrent executions and reserves none (a new account has 10)', () => {
    const queueOf = (m: { Properties: Record<string, unknown> }) =>
      (m.Properties.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const esm = ofType(s(), 'AWS::Lambda::EventSourceMapping').filter(([, m]) => /^Data(Dispatch|Slow)Queue/.test(queueOf(m)));
    expect(esm).toHaveLength(2);
    for (const [, m] of esm) expect(m.Properties.ScalingConfig).toEqual({ MaximumConcurrency: 2 });
    for (const [, f] of ofType(s(), 'AWS::Lambda::Function')) expect(f.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('alarms when any function is throttled', () => {
    const fnIds = ofType(s(), 'AWS::Lambda::Function')
      .filter(([, r]) => /^agent-integrations-/.test(r.Properties.FunctionName ?? ''))
      .map(([id]) => id);
    const alarm = ofType(s(), 'AWS::CloudWatch::Alarm').find(([, a]) => /-throttles$/.test(a.Properties.AlarmName))?.[1];
    expect(alarm).toBeDefined();
    const throttled = (
      alarm!.Properties.Metrics as Array<{ MetricStat?: { Metric: { MetricName: string; Dimensions: Array<{ Value: { Ref: string } }> } } }>
    )
      .filter((m) => m.MetricStat?.Metric.MetricName === 'Throttles')
      .map((m) => m.MetricStat!.Metric.Dimensions[0]!.Value.Ref);
    expect(throttled.sort()).toEqual(fnIds.sort());
    expect(alarm!.Properties.Threshold).toBe(1);
  });

  it('lets only its own queue move messages into the dead-letter queue', () => {
    const queues = ofType(s(), 'AWS::SQS::Queue');
    const main = queues.find(([, q]) => q.Properties.RedrivePolicy)!;
    const dlq = queues.find(([id]) => id === main[1].Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0])!;
    // The two dispatch lanes, main and slow.
    expect(dlq[1].Properties.RedriveAllowPolicy).toEqual({
      redrivePermission: 'byQueue',
      sourceQueueArns: [expect.anything(), expect.anything()],
    });
    // The main queue's ARN, built from its name (a reference to the queue itself would be a cycle).
    const arn = JSON.stringify(dlq[1].Properties.RedriveAllowPolicy.sourceQueueArns[0]);
    expect(arn).toContain(':sqs:');
    expect(arn).toContain('AWS::StackId');
    expect(JSON.stringify(main[1].Properties.QueueName)).toContain('AWS::StackId');
  });

  it('takes a burst of 1,000 deliveries a second on every webhook route, and gives every other route a smaller bucket of its own', () => {
    const [, stageRes] = ofType(s(), 'AWS::ApiGatewayV2::Stage')[0]!;
    const settings = stageRes.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
    const routeKeys = ofType(s(), 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    const webhooks = routeKeys.filter((k) => k.startsWith('POST /webhooks/'));
    expect(webhooks.sort()).toEqual([
      'POST /webhooks/contentsnare/{connectionId}/{token}',
      'POST /webhooks/github/app',
      'POST /webhooks/github/{endpointId}',
    ]);
    for (const key of webhooks) {
      expect(settings[key]?.ThrottlingRateLimit, key).toBeGreaterThanOrEqual(1000);
      expect(settings[key]?.ThrottlingBurstLimit, key).toBeGreaterThanOrEqual(1000);
    }
    // A flood of platform, tool or OAuth calls meets its own bucket, not the webhooks'.
    for (const key of routeKeys.filter((k) => !webhooks.includes(k))) {
      expect(settings[key], key).toBeDefined();
      expect(settings[key]!.ThrottlingRateLimit, key).toBeLessThan(1000);
    }
    // Route settings name a route key: the stage must be created after that route.
    const routeId = ofType(s(), 'AWS::ApiGatewayV2::Route').find(
      ([, r]) => r.Properties.RouteKey === 'POST /webhooks/github/{endpointId}',
    )![0];
    expect(stageRes.DependsOn).toContain(routeId);
  });

  it("alarms on the webhook 429s the front door answers, on 4xx, on webhook latency near the code host's 10 s, and on the age of both dispatch queues and of the poll and sweep work queues", () => {
    const alarms = ofType(s(), 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const named = (suffix: string) => alarms.find((a) => String(a.AlarmName).endsWith(suffix));
    const filters = ofType(s(), 'AWS::Logs::MetricFilter').map(([, f]) => f.Properties);
    const throttled = named('-webhook-throttled')!;
    expect(throttled).toMatchObject({ Threshold: 1, EvaluationPeriods: 1, Period: 60 });
    // Counted from the access log, where each 429 the gateway answers is a line.
    const countsThrottled = filters.find((f) => f.MetricTransformations[0].MetricName === throttled.MetricName)!;
    expect(countsThrottled.FilterPattern).toMatch(/\$\.status = 429/);
    expect(countsThrottled.FilterPattern).toContain('POST /webhooks/*');
    const latency = named('-webhook-latency-p99')!;
    expect(latency).toMatchObject({ Threshold: 8000, ExtendedStatistic: 'p99' });
    expect(filters.find((f) => f.MetricTransformations[0].MetricName === latency.MetricName)!.MetricTransformations[0].MetricValue).toBe(
      '$.responseLatency',
    );
    const clientErrors = named('-http-4xx')!;
    expect(JSON.stringify(clientErrors.Metrics)).toContain('"MetricName":"4xx"');
    const ages = alarms.filter((a) => a.MetricName === 'ApproximateAgeOfOldestMessage');
    const aged = ages.map((a) => a.Dimensions[0].Value['Fn::GetAtt'][0] as string);
    expect(aged).toHaveLength(4);
    expect(aged.filter((q) => /^Data(Dispatch|Slow)Queue/.test(q))).toHaveLength(2);
    expect(aged.filter((q) => /^(Poll|Sweep)Work/.test(q))).toHaveLength(2);
    // The access log is JSON with the fields the filters read, numbers unquoted.
    const [, stageRes] = ofType(s(), 'AWS::ApiGatewayV2::Stage')[0]!;
    const format = stageRes.Properties.AccessLogSettings.Format as string;
    expect(format).toContain('"status":$context.status,');
    expect(format).toContain('"routeKey":"$context.routeKey"');
    expect(format).toContain('"responseLatency":$context.responseLatency,');
  });

  it('passes cdk-nag AwsSolutions', () => {
    const report = new AwsSolutionsChecks(s().app).validateScope(s().app);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(',')}`)).toEqual([]);
  });
});

describe('alarm notifications', () => {
  it('let CloudWatch publish alarms of this stack only, and refuse plain HTTP to everyone', () => {
    const s = stacks.prod!;
    const [topicId] = ofType(s, 'AWS::SNS::Topic')[0]!;
    const policies = ofType(s, 'AWS::SNS::TopicPolicy');
    expect(policies).toHaveLength(1);
    const [, policy] = policies[0]!;
    expect(policy.Properties.Topics).toEqual([{ Ref: topicId }]);
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    expect(statements.some((st) => st.Effect === 'Deny' && st.Condition?.Bool?.['aws:SecureTransport'] === 'false')).toBe(true);
    const allow = statements.filter((st) => st.Effect === 'Allow');
    expect(allow).toHaveLength(1);
    expect(allow[0]!.Principal).toEqual({ Service: 'cloudwatch.amazonaws.com' });
    expect(allow[0]!.Action).toBe('sns:Publish');
    expect(allow[0]!.Resource).toEqual({ Ref: topicId });
    expect(allow[0]!.Condition.StringEquals['aws:SourceAccount']).toEqual({ Ref: 'AWS::AccountId' });
    const alarmIds = ofType(s, 'AWS::CloudWatch::Alarm').map(([id]) => id);
    const sourceArns = allow[0]!.Condition.ArnLike['aws:SourceArn'] as Array<{ 'Fn::GetAtt': [string, string] }>;
    expect(sourceArns.map((a) => a['Fn::GetAtt'][0]).sort()).toEqual(alarmIds.sort());
    // Every alarm notifies the topic, on alarm and on recovery.
    for (const [, a] of ofType(s, 'AWS::CloudWatch::Alarm')) {
      expect(a.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(a.Properties.OKActions).toEqual([{ Ref: topicId }]);
    }
  });

  it('are refused for prod without a receiver, unless the operator says so', () => {
    expect(() => synthStack({ stage: 'prod' })).toThrow(/alarmEmail.*acceptSilentAlarms/s);
    expect(() => synthStack({ stage: 'prod', acceptSilentAlarms: 'true' })).not.toThrow();
  });
});

describe('a stage that deletes its data', () => {
  it('deletes the table, queues, bucket, secrets, logs and the alarm key, with deletion protection off', () => {
    const kept = Object.entries(resourcesOf(disposable)).filter(([, r]) => [...stateful, 'AWS::KMS::Key'].includes(r.Type));
    expect(kept.map(([, r]) => r.Type)).toContain('AWS::KMS::Key');
    for (const [id, r] of kept) expect(r.DeletionPolicy, id).toBe('Delete');
    const [, table] = ofType(disposable, 'AWS::DynamoDB::Table')[0]!;
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
  });

  it('empties the payload bucket on destroy, so `cdk destroy` can delete it', () => {
    const [bucketId] = ofType(disposable, 'AWS::S3::Bucket')[0]!;
    const cleaners = ofType(disposable, 'Custom::S3AutoDeleteObjects');
    expect(cleaners).toHaveLength(1);
    expect(cleaners[0]![1].Properties.BucketName).toEqual({ Ref: bucketId });
    expect(ofType(stacks.prod!, 'Custom::S3AutoDeleteObjects')).toHaveLength(0);
  });

  it('passes cdk-nag AwsSolutions', () => {
    const report = new AwsSolutionsChecks(disposable.app).validateScope(disposable.app);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(',')}`)).toEqual([]);
  });
});

describe('deploy settings for concurrency', () => {
  it('take a larger dispatch concurrency for accounts with a raised limit, and refuse less than 2', () => {
    const big = synthStack({ stage: 'big', dispatchMaxConcurrency: '20' });
    expect(ofType(big, 'AWS::Lambda::EventSourceMapping')[0]![1].Properties.ScalingConfig).toEqual({ MaximumConcurrency: 20 });
    expect(() => synthStack({ dispatchMaxConcurrency: '1' })).toThrow(/dispatchMaxConcurrency/);
  });

  it('size the slow lane on its own setting, which takes the events of slow agents', () => {
    const big = synthStack({ stage: 'big', dispatchSlowMaxConcurrency: '12' });
    const scaling = ofType(big, 'AWS::Lambda::EventSourceMapping').map(([, r]) => r.Properties.ScalingConfig?.MaximumConcurrency);
    // The main lane keeps its 2 (the work queues of the poller and the sweep have 20 each).
    expect(scaling.sort((a, b) => a - b)).toEqual([2, 12, 20, 20]);
    expect(() => synthStack({ dispatchSlowMaxConcurrency: '1' })).toThrow(/dispatchSlowMaxConcurrency/);
  });
});
