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
