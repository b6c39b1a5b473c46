/**
 * Runs tasks one at a time per key, within this process. The rate limiter's optimistic
 * writes on one item would otherwise collide with every concurrent caller of the same
 * process (O(n^2) retries for a burst); serialising them locally leaves contention only
 * between processes. Keys are independent: one account's queue never delays another's.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running (for tests). */
  get activeKeys(): number {
    return this.tails.size;
  }
}
