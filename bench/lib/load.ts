import { Agent, request } from 'node:http';

import type { Shot } from '../../test/helpers/seed';

export type { Shot };

export interface LoadResult {
  sent: number;
  statuses: Map<number, number>;
  /** Request latencies in ms. */
  latencies: number[];
  /** Wall time of the whole run in ms. */
  elapsedMs: number;
  /** Requests that failed at the transport (connection refused or reset). */
  transportErrors: number;
}

export interface Answer {
  status: number;
  body: string;
}

/**
 * A keep-alive agent that drops an idle socket before the server closes it. Node's agent
 * follows the server's `Keep-Alive: timeout=` hint (less a second) only when it has a timeout
 * of its own; without one it can send on a socket the server is closing that moment, and the
 * request fails with ECONNRESET unread: a refusal the client made, not the server.
 */
export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, timeout: 60_000 });
}

/** One POST over a keep-alive agent (node:http: fewer moving parts than fetch in a hot loop). */
export function post(baseUrl: string, shot: Shot, agent: Agent): Promise<Answer> {
  const url = new URL(shot.path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { ...shot.headers, 'content-length': String(shot.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(shot.body);
  });
}

/**
 * Sends `shots` with `concurrency` clients, each sending its next request when the previous
 * answered (closed loop: the figure is what the server sustains, not what we throw at it).
 */
export async function closedLoop(
  baseUrl: string,
  shots: readonly Shot[],
  concurrency: number,
  onAnswer?: (i: number, a: Answer, sentAt: number) => void,
): Promise<LoadResult> {
  const agent = keepAliveAgent(concurrency);
  const result: LoadResult = { sent: 0, statuses: new Map(), latencies: [], elapsedMs: 0, transportErrors: 0 };
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < shots.length) {
      const i = next++;
      const t0 = performance.now();
      const sentAt = Date.now();
      result.sent++;
      try {
        const a = await post(baseUrl, shots[i]!, agent);
        result.latencies.push(performance.now() - t0);
        result.statuses.set(a.status, (result.statuses.get(a.status) ?? 0) + 1);
        onAnswer?.(i, a, sentAt);
      } catch {
        result.transportErrors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  result.elapsedMs = performance.now() - started;
  agent.destroy();
  return result;
}

export function throughput(r: LoadResult): number {
  return (r.sent / r.elapsedMs) * 1000;
}

export function statusText(r: LoadResult): string {
  const parts = [...r.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s} x${n}`);
  if (r.transportErrors) parts.push(`transport errors x${r.transportErrors}`);
  return parts.join(', ');
}
