import { Metrics as PowertoolsMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { emittedName } from './metric-names';
import type { Metrics } from './metrics';

export interface EmfMetrics extends Metrics {
  /** Writes what was counted since the last flush as EMF lines; the handler wrapper calls it after each invocation. */
  flush(): void;
}

export interface EmfMetricsOptions {
  /** Powertools' `service` dimension (the function's name). */
  service?: string;
  /** Where the EMF JSON lines go: stdout, which CloudWatch Logs reads on Lambda. */
  write?: (line: string) => void;
}

/**
 * Metrics as CloudWatch Embedded Metric Format, built by Powertools Metrics. Counts are
 * summed in memory during an invocation (a delivery may count the same name many times)
 * and written at `flush()`: one EMF document per dimension set, each with the `stage`
 * (and Powertools' `service`) dimension. Names go through `emittedName`, so the names code
 * counts under reach the dashboard's.
 */
export function createEmfMetrics(namespace: string, stage: string, options: EmfMetricsOptions = {}): EmfMetrics {
  const pt = new PowertoolsMetrics({ namespace, serviceName: options.service, defaultDimensions: { stage } });
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  // dimension set key -> { dimensions, metric name -> sum }
  const pending = new Map<string, { dimensions: Record<string, string>; sums: Map<string, number> }>();

  return {
    count(name, value = 1, dimensions) {
      if (!Number.isFinite(value)) return;
      const dims = dimensions ?? {};
      const key = JSON.stringify(Object.entries(dims).sort(([a], [b]) => a.localeCompare(b)));
      let group = pending.get(key);
      if (!group) {
        group = { dimensions: dims, sums: new Map() };
        pending.set(key, group);
      }
      const metric = emittedName(name);
      group.sums.set(metric, (group.sums.get(metric) ?? 0) + value);
    },
    flush() {
      const groups = [...pending.values()];
      pending.clear();
      for (const group of groups) {
        try {
          pt.addDimensions(group.dimensions);
          for (const [metric, sum] of group.sums) pt.addMetric(metric, MetricUnit.Count, sum);
          write(JSON.stringify(pt.serializeMetrics()));
        } catch {
          // A metric must never fail an invocation (e.g. a dimension value Powertools refuses).
        } finally {
          pt.clearMetrics();
          pt.clearDimensions();
        }
      }
    },
  };
}
