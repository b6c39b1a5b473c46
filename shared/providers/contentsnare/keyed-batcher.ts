/**
 * Group commit per key, within this process. Concurrent callers of one key queue here;
 * while one flush is in flight the next callers gather, and the next flush serves all of
 * them at once. The rate limiter uses it so that a burst of a process's calls on one
 * account costs one conditional write per batch instead of one per call (and instead of
 * O(n^2) optimistic-write collisions); only processes then race on the table.
 * Keys are independent: one account's queue never delays another's.
 */
export class KeyedBatcher<Req, Res> {
  private readonly queues = new Map<string, Array<{ req: Req; resolve: (r: Res) => void; reject: (e: unknown) => void }>>();

  /** `flush` answers each request of the batch, in order, with a result or an Error to throw. */
  constructor(
    private readonly flush: (key: string, batch: Req[]) => Promise<Array<Res | Error>>,
    private readonly maxBatch = 100,
  ) {}

  submit(key: string, req: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const queue = this.queues.get(key);
      if (queue) {
        queue.push({ req, resolve, reject });
        return;
      }
      this.queues.set(key, [{ req, resolve, reject }]);
      void this.drain(key);
    });
  }

  private async drain(key: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(key);
      if (!queue || queue.length === 0) {
        this.queues.delete(key);
        return;
      }
      const batch = queue.splice(0, this.maxBatch);
      try {
        const results = await this.flush(
          key,
          batch.map((b) => b.req),
        );
        batch.forEach((b, i) => {
          const r = results[i];
          if (r instanceof Error) b.reject(r);
          else b.resolve(r as Res);
        });
      } catch (e) {
        for (const b of batch) b.reject(e);
      }
    }
  }

  /** Keys with callers queued or a flush running (for tests). */
  get activeKeys(): number {
    return this.queues.size;
  }
}
