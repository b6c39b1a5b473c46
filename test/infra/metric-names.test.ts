import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appMetrics, metricNamespace as stackNamespace } from '../../infra/constructs/app-metrics';
import { emittedName, metricAliases, metricNames, metricNamespace } from '../../shared/observability/metric-names';
import { synthStack } from './synth-stack';

const root = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every name some production code counts under (`metrics.count('name', ...)`), as written in
 * code, with a file that counts it.
 */
function namesInCode(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of [...sources(join(root, 'shared')), ...sources(join(root, 'functions'))]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/metrics\??\.count\(\s*'([^']+)'/g)) out.set(m[1]!, relative(root, file));
  }
  return out;
}

/** The same names as emitted on AWS (through the alias table), with a file that counts each. */
function countedNames(): Map<string, string> {
  return new Map([...namesInCode()].map(([name, file]) => [emittedName(name), file]));
}

/** The product metric names the stack reads: dashboard searches and alarms in our namespace. */
function namesTheStackReads(): string[] {
  const { template } = synthStack({ stage: 'test', alarmEmail: 'ops@example.com' });
  const resources = Object.values(template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>);
  const names = new Set<string>();
  for (const r of resources) {
    if (r.Type === 'AWS::CloudWatch::Dashboard') {
      const body = JSON.stringify(r.Properties.DashboardBody);
      for (const m of body.matchAll(/Namespace=\\*"([^"\\]+)\\*" MetricName=\\*"([^"\\]+)\\*"/g)) {
        if (m[1] === metricNamespace) names.add(m[2]!);
      }
    }
    if (r.Type === 'AWS::CloudWatch::Alarm') {
      const single = r.Properties as {
        Namespace?: string;
        MetricName?: string;
        Metrics?: Array<{ MetricStat?: { Metric?: { Namespace?: string; MetricName?: string } } }>;
      };
      if (single.Namespace === metricNamespace && single.MetricName) names.add(single.MetricName);
      for (const q of single.Metrics ?? []) {
        const m = q.MetricStat?.Metric;
        if (m?.Namespace === metricNamespace && m.MetricName) names.add(m.MetricName);
      }
    }
  }
  return [...names].sort();
}

describe('one list of metric names for code and stack', () => {
  let read: string[];
  let counted: Map<string, string>;
  beforeAll(() => {
    read = namesTheStackReads();
    counted = countedNames();
  }, 240_000); // a synth: a minute or more on a loaded machine, as in stack.test.ts

  it('the stack takes its names and namespace from shared/observability/metric-names.ts, not a copy', () => {
    expect(appMetrics).toBe(metricNames);
    expect(stackNamespace).toBe(metricNamespace);
  });

  it('the dashboard reads product metrics (the scan below is not vacuous)', () => {
    expect(read).toEqual(
      expect.arrayContaining([
        metricNames.deliveriesAccepted,
        metricNames.eventsDeadLettered,
        metricNames.tokenRefreshes,
        metricNames.rateLimitWaits,
      ]),
    );
  });

  it('every metric the dashboard or an alarm reads is one the code counts', () => {
    const missing = read.filter((name) => !counted.has(name));
    expect(missing).toEqual([]);
  });

  it('code counts under snake_case <area>_<what> names only', () => {
    const names = [...namesInCode().keys()];
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(name))).toEqual([]);
  });

  it('every alias is a name some code counts (no alias that nothing counts)', () => {
    const inCode = namesInCode();
    expect(Object.keys(metricAliases).filter((name) => !inCode.has(name))).toEqual([]);
  });

  it('every name the stack reads is in the list', () => {
    for (const name of read) expect(Object.values(metricNames)).toContain(name);
  });
});
