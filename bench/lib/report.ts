/** Figures of one benchmark, each printed next to its baseline from the same run. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The baseline measured in the same run, when the figure has one. */
  baseline?: { name: string; value: number };
  /** Human text of the goal, e.g. ">= 0.5x durable floor". */
  goal: string;
  pass: boolean;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/**
 * Prints each figure with its baseline and ratio, then PASS or FAIL as the last line
 * (what bench/run-all.ts reads). Returns whether every goal held.
 */
export function printFigures(title: string, figures: readonly Figure[]): boolean {
  console.log(`\n== ${title}`);
  for (const f of figures) {
    const base = f.baseline
      ? ` | baseline ${f.baseline.name}: ${fmt(f.baseline.value)} ${f.unit} | ratio ${fmt(f.value / f.baseline.value)}x`
      : '';
    console.log(`  ${f.pass ? 'PASS' : 'FAIL'}  ${f.name}: ${fmt(f.value)} ${f.unit}${base} | goal ${f.goal}`);
  }
  const pass = figures.every((f) => f.pass);
  console.log(pass ? 'PASS' : 'FAIL');
  return pass;
}

/** Runs a benchmark's main: exit 0 after printing (PASS/FAIL is in the output), 1 when it crashed. */
export function runMain(main: () => Promise<unknown>): void {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}

export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? Number.NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
