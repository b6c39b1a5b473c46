import { figureLines, type Figure } from '../../test/helpers/bench-summary';

export type { Figure };

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

/**
 * Prints each figure with its baseline, ratio and goal, then the verdict line that
 * bench/run-all.ts reads (test/helpers/bench-summary.ts). Returns whether every goal held or
 * is a known miss.
 */
export function printFigures(title: string, figures: readonly Figure[], out: (line: string) => void = console.log): boolean {
  out(`\n== ${title}`);
  const { lines, ok } = figureLines(figures);
  for (const l of lines) out(l);
  return ok;
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
