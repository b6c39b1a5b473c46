import { knownOutOfReach } from './bench-known-limits';

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

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

/**
 * A benchmark's figures as it prints them (bench/lib/report.ts): each with its baseline, ratio
 * and goal, PASS, MISS (a goal known to be out of reach here, with why: bench-known-limits.ts)
 * or FAIL; then the verdict as the last line: PASS, `PASS with known misses` or FAIL. `ok`:
 * every goal held or is a known miss.
 */
export function figureLines(figures: readonly Figure[]): { lines: string[]; ok: boolean } {
  const lines: string[] = [];
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
    lines.push(
      `  ${verdict}  ${f.name}: ${fmt(f.value)} ${f.unit}${base} | goal ${f.goal}${why ? ` | known out of reach here: ${why}` : ''}`,
    );
  }
  lines.push(failed ? 'FAIL' : missed ? 'PASS with known misses' : 'PASS');
  return { lines, ok: !failed };
}

/** One benchmark's run as `npm run bench` saw it. */
export interface BenchRun {
  file: string;
  /** The process's exit code (non-zero: it crashed before printing its verdict). */
  code: number | null;
  seconds: number;
  out: string;
}

const figureLine = /^\s+(PASS|MISS|FAIL)\s{2}(.*)$/;

/**
 * The summary `npm run bench` ends with: per benchmark its verdict (PASS, KNOWN when its only
 * misses are goals known to be out of reach here, FAIL, CRASHED) and each of its figures with
 * its goal; then one line on the whole. Exit code 1 only for a failure or a crash.
 */
export function summarize(runs: readonly BenchRun[]): { lines: string[]; exitCode: number } {
  const lines = ['', '== summary'];
  let failed = false;
  let missed = false;
  for (const r of runs) {
    const last = r.out.trim().split('\n').at(-1)?.trim();
    const verdict = r.code !== 0 ? 'CRASHED' : last === 'PASS' ? 'PASS' : last === 'PASS with known misses' ? 'KNOWN' : 'FAIL';
    if (verdict === 'KNOWN') missed = true;
    else if (verdict !== 'PASS') failed = true;
    lines.push(`${verdict.padEnd(7)} ${r.file} (${r.seconds.toFixed(0)} s)`);
    for (const l of r.out.split('\n')) {
      const m = figureLine.exec(l);
      if (m) lines.push(`          ${m[1]}  ${m[2]}`);
    }
  }
  lines.push(
    failed ? 'SOME GOALS NOT MET' : missed ? 'GOALS MET, BUT FOR THOSE KNOWN TO BE OUT OF REACH HERE (MISS, with why)' : 'ALL GOALS MET',
  );
  return { lines, exitCode: failed ? 1 : 0 };
}
