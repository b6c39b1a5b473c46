/** Counters for operators (EMF on AWS via Powertools Metrics; logged locally). */
export interface Metrics {
  count(name: string, value?: number, dimensions?: Record<string, string>): void;
}

export const noMetrics: Metrics = { count: () => {} };

/** Keeps counts in memory: tests and the local runtime's `/healthz` detail. */
export class InMemoryMetrics implements Metrics {
  readonly counts = new Map<string, number>();
  count(name: string, value = 1, dimensions?: Record<string, string>): void {
    const key = dimensions
      ? `${name}|${Object.entries(dimensions)
          .map(([k, v]) => `${k}=${v}`)
          .join(',')}`
      : name;
    this.counts.set(key, (this.counts.get(key) ?? 0) + value);
  }
}
