import type { HttpRequest, HttpResponse } from '../shared/http/types';

/** Requests being handled above which the intake counts as behind (16 closed-loop clients stay under it). */
const inFlightLimit = 32;
/** Smoothed event-loop lag above which the intake counts as behind. */
const lagLimitMs = 20;
const lagSampleMs = 20;

export interface IntakePressure {
  /** The handler (of a request, or of an admitted request's body: runtime.ts), counting the requests in flight. */
  count<A extends HttpRequest | Buffer>(handle: (req: A) => Promise<HttpResponse>): (req: A) => Promise<HttpResponse>;
  /** True while the local runtime's HTTP side is falling behind. */
  busy(): boolean;
  stop(): void;
}

/**
 * Tells the local consumer when to step back for the intake (local/jobs.ts). Two signs: many
 * requests in flight, or a slow event loop. The second matters most: node accepts one new
 * connection per loop turn, so while turns are long, deliveries on new connections wait in
 * the kernel's accept queue where no request count sees them (at 200/s on a cold process,
 * for seconds).
 */
export function intakePressure(): IntakePressure {
  let inFlight = 0;
  let lagMs = 0;
  let lastTick = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lagMs = 0.7 * lagMs + 0.3 * Math.max(0, now - lastTick - lagSampleMs);
    lastTick = now;
  }, lagSampleMs).unref();
  return {
    count: (handle) => async (req) => {
      inFlight++;
      try {
        return await handle(req);
      } finally {
        inFlight--;
      }
    },
    busy: () => inFlight > inFlightLimit || lagMs > lagLimitMs,
    stop: () => clearInterval(timer),
  };
}
