/**
 * The local runtime's log lines to stdout, written together once per event-loop turn
 * instead of one write per line. On Linux a write to a pipe or a terminal is a synchronous
 * system call; at INFO the runtime logs two lines per delivery, and the per-line writes were
 * ~2% of its busy CPU under load (docs/performance.md). Same lines, same order; what is
 * pending is written synchronously at exit (also after an uncaught exception), so a crash
 * loses nothing but a SIGKILL within the same turn.
 */
let pending: string[] = [];
let scheduled = false;
let hooked = false;

function flush(): void {
  scheduled = false;
  if (pending.length === 0) return;
  const chunk = pending.join('');
  pending = [];
  process.stdout.write(chunk);
}

export function stdoutLines(line: string): void {
  pending.push(`${line}\n`);
  if (!hooked) {
    hooked = true;
    process.on('exit', flush);
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}
