/** Thrown when work did not finish before its deadline. */
export class DeadlineExceededError extends Error {
  constructor(readonly ms: number) {
    super(`deadline of ${ms} ms exceeded`);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * Settles with `work`, or rejects with `DeadlineExceededError` after `ms` (real time: the
 * code host's 10 s is wall-clock). `onAbandon` runs when the deadline wins, so the caller
 * can tell the still-running work to stop and undo what it did.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, onAbandon?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onAbandon?.();
      reject(new DeadlineExceededError(ms));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
