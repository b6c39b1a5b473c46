import { readFileSync } from 'node:fs';

/** Linux's clock tick for /proc times (USER_HZ): 100 on every mainstream kernel build. */
const ticksPerSecond = 100;

/**
 * CPU time (user + system, every thread: the embedded DynamoDB's worker, libuv's pool and
 * GC threads included) a process has used so far, in ms, from /proc/<pid>/stat; undefined
 * where /proc is not there. Coarse (10 ms ticks): read it around hundreds of requests.
 */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime + stime) ? ((utime + stime) * 1000) / ticksPerSecond : undefined;
  } catch {
    return undefined;
  }
}

/** CPU ms the process used while `work` ran (undefined where it cannot be read). */
export async function cpuDuring<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ result: T; cpuMs: number | undefined }> {
  const before = processCpuMs(pid);
  const result = await work();
  const after = processCpuMs(pid);
  return { result, cpuMs: before === undefined || after === undefined ? undefined : after - before };
}
