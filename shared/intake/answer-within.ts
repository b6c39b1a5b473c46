/** What `answerWithin` ended with: the work's answer, or the deadline first. */
export type Within<T> = { kind: 'answered'; value: T } | { kind: 'late' };

const late = Symbol('late');

/**
 * Runs `work` under an HTTP answer's wall-clock deadline (the code host gives up at 10 s;
 * this is the one timer of the intake). When `deadlineMs` passes first, the work's signal is
 * aborted, so it stops at its next step and gives back what it holds, and the answer waits
 * up to `graceMs` more for it to settle (its claim released) before it leaves; the work goes
 * on in the background otherwise. A rejection of the work before the deadline is passed on.
 */
export async function answerWithin<T>(deadlineMs: number, graceMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<Within<T>> {
  const controller = new AbortController();
  const running = work(controller.signal);
  const first = await raceTimer(running, deadlineMs);
  if (first !== late) return { kind: 'answered', value: first };
  controller.abort();
  await raceTimer(
    running.catch(() => undefined),
    graceMs,
  );
  return { kind: 'late' };
}

async function raceTimer<T>(work: Promise<T>, ms: number): Promise<T | typeof late> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<typeof late>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
