import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appMetrics, metricNamespace as dashboardNamespace } from '../../infra/constructs/app-metrics';
import { createEmfMetrics } from '../../shared/observability/emf-metrics';
import { metricAliases, metricNames, metricNamespace } from '../../shared/observability/metric-names';
import { lambdaObservability, withObservability } from '../../shared/observability/lambda-wrapper';

interface Emf {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }>;
  };
  [key: string]: unknown;
}

function capture(): { lines: string[]; write: (l: string) => void } {
  const lines: string[] = [];
  return { lines, write: (l) => lines.push(l) };
}

describe('EMF metrics', () => {
  it('sums counts per name and writes one EMF document per dimension set at flush, with stage and service', () => {
    const out = capture();
    const m = createEmfMetrics('AgentIntegrations', 'prod', { service: 'webhook-intake', write: out.write });
    m.count('webhook_accepted');
    m.count('webhook_accepted');
    m.count('sweep_redelivered', 3);
    m.count('tool_step', 1, { toolId: 'github.get_issue', outcome: 'ok' });
    m.count('tool_step', 1, { outcome: 'ok', toolId: 'github.get_issue' });
    m.count('tool_step', 1, { toolId: 'github.get_issue', outcome: 'rate_limited' });
    expect(out.lines).toEqual([]);
    m.flush();
    const docs = out.lines.map((l) => JSON.parse(l) as Emf);
    expect(docs).toHaveLength(3);
    const plain = docs[0]!;
    expect(plain._aws.CloudWatchMetrics[0]!.Namespace).toBe('AgentIntegrations');
    expect(plain._aws.CloudWatchMetrics[0]!.Dimensions[0]).toEqual(expect.arrayContaining(['stage', 'service']));
    expect(plain).toMatchObject({ stage: 'prod', service: 'webhook-intake', DeliveriesAccepted: 2, SweepRedeliveries: 3 });
    expect(docs[1]).toMatchObject({ toolId: 'github.get_issue', outcome: 'ok', ToolSteps: 2, stage: 'prod' });
    expect(docs[1]!._aws.CloudWatchMetrics[0]!.Dimensions[0]).toEqual(expect.arrayContaining(['stage', 'toolId', 'outcome']));
    expect(docs[2]).toMatchObject({ outcome: 'rate_limited', ToolSteps: 1 });
    expect(docs[1]!._aws.CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: 'ToolSteps', Unit: 'Count' }]);
  });

  it('writes nothing when nothing was counted since the last flush', () => {
    const out = capture();
    const m = createEmfMetrics('AgentIntegrations', 'dev', { write: out.write });
    m.count('EventsDispatched');
    m.flush();
    m.flush();
    expect(out.lines).toHaveLength(1);
  });

  it('never throws from count or flush, even for a dimension Powertools refuses', () => {
    const out = capture();
    const m = createEmfMetrics('AgentIntegrations', 'dev', { write: out.write });
    m.count('EventsRetried', 1, { '': 'x' });
    m.count('EventsRetried', Number.NaN);
    expect(() => m.flush()).not.toThrow();
  });
});

describe('metric names', () => {
  it('are the ones the dashboard reads, in the same namespace', () => {
    expect(metricNamespace).toBe(dashboardNamespace);
    for (const name of Object.values(appMetrics)) expect(Object.values(metricNames)).toContain(name);
  });

  it('map every name code counts under today to a dashboard name', () => {
    for (const target of Object.values(metricAliases)) expect(Object.values(metricNames)).toContain(target);
    expect(metricAliases.webhook_refused).toBe(appMetrics.deliveriesRefused);
    expect(metricAliases.dispatch_retry).toBe(appMetrics.eventsRetried);
    expect(metricAliases.tool_step).toBe(appMetrics.toolSteps);
  });
});

describe('withObservability', () => {
  let lines: string[];
  beforeEach(() => {
    lines = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
  });
  afterEach(() => vi.restoreAllMocks());

  const context = {
    functionName: 'agent-integrations-dev-dispatch',
    awsRequestId: 'req-1',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:x',
    memoryLimitInMB: '256',
    functionVersion: '$LATEST',
  } as unknown as Context;
  const emf = () => lines.filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Emf);

  it('flushes the invocation metrics after each invocation and logs the cold start once', async () => {
    const handler = withObservability(lambdaObservability('metrics-test-a', {}), async (n: number) => {
      lambdaObservability('metrics-test-a', {}).metrics.count('dispatch_delivered', n);
      return n * 2;
    });
    expect(await handler(2, context)).toBe(4);
    expect(await handler(3, context)).toBe(6);
    expect(emf().map((d) => d.EventsDispatched)).toEqual([2, 3]);
    const cold = lines.filter((l) => l.includes('"cold start"'));
    expect(cold).toHaveLength(1);
    expect(JSON.parse(cold[0]!)).toMatchObject({ function_request_id: 'req-1', service: 'metrics-test-a' });
  });

  it('flushes and logs a redacted failure when the handler throws, and rethrows', async () => {
    const handler = withObservability(lambdaObservability('metrics-test-b', {}), async () => {
      lambdaObservability('metrics-test-b', {}).metrics.count('dispatch_retry');
      throw new Error('agent runtime refused Bearer abcdefgh12345');
    });
    await expect(handler(undefined, context)).rejects.toThrow('agent runtime refused');
    expect(emf().map((d) => d.EventsRetried)).toEqual([1]);
    const failed = lines.find((l) => l.includes('"invocation failed"'));
    expect(failed).toBeDefined();
    expect(failed).not.toContain('abcdefgh12345');
  });
});
