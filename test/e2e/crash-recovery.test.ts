import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueOpenedBody, signedShot } from '../helpers/seed';
import { FakeGitHub } from '../helpers/fake-github-server';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { startLocalProcess, type RunningLocal } from '../helpers/local-process';
import { platformKey, signingSecret, subscribeOverApi, until } from '../helpers/runtime-support';

/**
 * Crash safety (docs/reliability.md, "Crashes: a process killed at any point"), as an operator would see it: signed deliveries stream into `npm start` (a child
 * process in its own process group) while the agent runtime is slow; the whole group is
 * SIGKILLed mid-stream, at a random moment, three times; each time it starts again on the
 * same DATA_DIR. At the end every delivery that got no 2xx is sent again as the code host
 * would redeliver it (same X-GitHub-Delivery, same bytes) until it gets one.
 * The verdict: every delivery ever answered 2xx reaches the agent runtime. Duplicates
 * (at-least-once: the same event id posted again after a kill) are counted and printed,
 * not failed. Where the kills land is random; the verdict must hold wherever they do.
 */

const token = 'ghp_crashTestToken0000000000000000000000000';
const kills = 3;

/** A slow agent runtime: holds each event a moment, counts arrivals per delivery id. */
async function slowAgent(): Promise<{ server: FakeServer; arrivals: Map<string, number>; url: string }> {
  const arrivals = new Map<string, number>();
  const server = await startFakeHttp(async (req) => {
    const e = req.json as { deliveryId?: string } | undefined;
    if (e?.deliveryId) arrivals.set(e.deliveryId, (arrivals.get(e.deliveryId) ?? 0) + 1);
    await new Promise((r) => setTimeout(r, 40));
    return { status: 200, body: { ok: true } };
  });
  return { server, arrivals, url: `${server.url}/trigger-events` };
}

interface Delivery {
  guid: string;
  shot: { path: string; headers: Record<string, string>; body: Buffer };
  /** Answered 2xx at least once. */
  acked: boolean;
  tries: number;
}

async function send(rt: RunningLocal, d: Delivery): Promise<number | 'no answer'> {
  d.tries++;
  try {
    const res = await fetch(`${rt.url}${d.shot.path}`, {
      method: 'POST',
      headers: d.shot.headers,
      body: d.shot.body,
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    if (res.status >= 200 && res.status < 300) d.acked = true;
    return res.status;
  } catch {
    return 'no answer';
  }
}

let github: FakeGitHub;
let agent: Awaited<ReturnType<typeof slowAgent>>;
const children: RunningLocal[] = [];
beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  agent = await slowAgent();
});
afterAll(async () => {
  for (const c of children) await c.killGroup().catch(() => undefined);
  await github.close();
  await agent.server.close();
});

describe('the local runtime killed mid-stream (SIGKILL of its process group)', () => {
  it(`loses no delivery it answered 2xx, nor any redelivery of one it did not, over ${kills} kills`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
    const env = {
      DATA_DIR: dataDir,
      PORT: '0',
      GITHUB_API_URL: github.url,
      AGENT_RUNTIME_URL: agent.url,
      PLATFORM_API_KEY: platformKey,
      DISPATCH_SIGNING_SECRET: signingSecret,
      POLL_INTERVAL_SECONDS: '3600',
    };
    const start = async () => {
      const rt = await startLocalProcess(env, 30_000, { detached: true });
      children.push(rt);
      return rt;
    };
    let rt = await start();
    const { hook, endpointId } = await subscribeOverApi(rt.url, github, token);
    const secret = hook.config.secret ?? '';
    const all: Delivery[] = [];
    const fresh = (): Delivery => {
      const guid = `crash-${all.length}-${randomUUID()}`;
      const d = { guid, shot: signedShot({ endpointId, secret }, issueOpenedBody(), guid), acked: false, tries: 0 };
      all.push(d);
      return d;
    };

    for (let k = 0; k < kills; k++) {
      // A stream from 8 senders; the kill comes after a random number of answers in this round.
      const killAfter = 10 + Math.floor(Math.random() * 30);
      let answered = 0;
      let killed = false;
      const target = rt;
      const kill = (async () => {
        await until(`${killAfter} answers before kill ${k + 1}`, () => answered >= killAfter, 30_000);
        killed = true;
        await target.killGroup();
      })();
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (!killed) {
            const status = await send(target, fresh());
            if (status !== 'no answer') answered++;
          }
        }),
      );
      await kill;
      rt = await start();
    }

    // The code host's redeliveries (or the sweep's): what got no 2xx, same GUID, same bytes,
    // until answered 2xx. A dead attempt's claim answers 503 until its lease passes.
    const unacked = all.filter((d) => !d.acked);
    const deadline = Date.now() + 40_000;
    while (all.some((d) => !d.acked)) {
      if (Date.now() > deadline)
        throw new Error(
          `still not accepted after redeliveries: ${all
            .filter((d) => !d.acked)
            .map((d) => d.guid)
            .join(', ')}`,
        );
      await Promise.all(all.filter((d) => !d.acked).map((d) => send(rt, d)));
      if (all.some((d) => !d.acked)) await new Promise((r) => setTimeout(r, 500));
    }

    // Every delivery was answered 2xx at some point: every one must reach the agent runtime.
    await until(
      'every acknowledged delivery at the agent runtime',
      () => all.every((d) => (agent.arrivals.get(d.guid) ?? 0) >= 1),
      40_000,
    ).catch(() => undefined);
    const lost = all.filter((d) => !agent.arrivals.has(d.guid)).map((d) => d.guid);
    const duplicates = all.reduce((n, d) => n + Math.max(0, (agent.arrivals.get(d.guid) ?? 0) - 1), 0);
    console.log(
      `crash recovery: ${all.length} deliveries, ${kills} SIGKILLs, ${unacked.length} without a 2xx before their redelivery, ` +
        `${all.reduce((n, d) => n + d.tries, 0) - all.length} redelivery attempts, lost ${lost.length}, duplicates at the agent runtime ${duplicates}`,
    );
    expect(lost).toEqual([]);
    await rt.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);
});
