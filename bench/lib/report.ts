import { knownOutOfReach } from './known-limits';

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
 * Prints each figure with its baseline, ratio and goal: PASS, MISS (a goal known to be out of
 * reach here, with why: known-limits.ts) or FAIL; then, as the last line (what
 * bench/run-all.ts reads), PASS, `PASS with known misses` or FAIL. Returns whether every
 * goal held or is a known miss.
 */
export function printFigures(title: string, figures: readonly Figure[], out: (line: string) => void = console.log): boolean {
  out(`\n== ${title}`);
  let failed = false;
  let missed = false;
  for (const f of figures) {
    const base = f.baseline
      ? ` | baseline ${f.baseline.name}: ${fmt(f.baseline.value)} ${f.unit} | ratio ${fmt(f.value / f.baseline.value)}x`
      : '';
    const why = f.pass ? undefined : knownOutOfReach(f.name);
    if (!f.pass && why) missed = true;
    else if (!f.pass) failed = true;
    const verdict = f.pass ? 'PASS' : why ? 'MISS' : 'FAIL';
    out(`  ${verdict}  ${f.name}: ${fmt(f.value)} ${f.unit}${base} | goal ${f.goal}${why ? ` | known out of reach here: ${why}` : ''}`);
  }
  out(failed ? 'FAIL' : missed ? 'PASS with known misses' : 'PASS');
  return !failed;
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
