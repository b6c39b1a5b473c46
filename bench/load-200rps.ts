/**
 * Load test, loopback only and bounded: holds BENCH_RATE (200) deliveries/s for
 * BENCH_SECONDS (60; run-all uses 10) on the local runtime started as `npm start` starts it
 * (`tsx local/main.ts` in a child process: embedded DynamoDB, file queue, in-process
 * consumer), a subscription made over the platform API (hook at a fake code host), unique
 * GUIDs, a fake agent runtime counting receipts. Open loop: deliveries leave on schedule
 * whatever the answers, as the code host sends them.
 * Prints refused deliveries (goal 0), lost events (acknowledged minus received after the
 * drain; goal 0), duplicates (goal 0), intake latency p50/p99 and delivery latency p50/p99.
 *   BENCH_SECONDS=60 npx tsx bench/load-200rps.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLocalQueues } from '../shared/adapters/local/local-queues';
import { systemClock } from '../shared/ports';
import { FakeGitHub } from '../test/helpers/fake-github-server';
import { startLocalProcess } from '../test/helpers/local-process';
import { platformKey, signingSecret, subscribeOverApi } from '../test/helpers/runtime-support';
import { keepAliveAgent, post } from './lib/load';
import { ReceiptCounter } from './lib/receipts';
import { envNumber, percentile, printFigures, runMain } from './lib/report';
import { issueOpenedBody, signedShot } from '../test/helpers/seed';

const rate = envNumber('BENCH_RATE', 200);
const seconds = envNumber('BENCH_SECONDS', 60);
const drainSeconds = envNumber('BENCH_DRAIN_SECONDS', 60);

async function main(): Promise<void> {
  const receipts = await ReceiptCounter.start();
  const github = await FakeGitHub.start();
  const token = 'ghp_loadTestToken000000000000000000000000000';
  github.addUser(token, 'Codertocat');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const rt = await startLocalProcess({
    DATA_DIR: dataDir,
    PORT: '0',
    GITHUB_API_URL: github.url,
    AGENT_RUNTIME_URL: receipts.url,
    PLATFORM_API_KEY: platformKey,
    DISPATCH_SIGNING_SECRET: signingSecret,
    POLL_INTERVAL_SECONDS: '3600',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'INFO',
  });
  rt.url = rt.url.replace('localhost', '127.0.0.1');
  const sub = await subscribeOverApi(rt.url, github, token);
  const tenant = { endpointId: sub.endpointId, secret: sub.hook.config.secret ?? '' };
  const body = issueOpenedBody();
  const agent = keepAliveAgent(256);
  const total = Math.round(rate * seconds);
  console.log(`load: ${rate} deliveries/s for ${seconds} s (${total} deliveries of ${body.length} bytes), open loop, loopback`);

  const acknowledged = new Map<string, number>();
  const intakeMs: number[] = [];
  let refused = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const sendOne = () => {
    const shot = signedShot(tenant, body);
    const guid = shot.headers['x-github-delivery']!;
    const at = Date.now();
    const t0 = performance.now();
    const p = post(rt.url, shot, agent).then(
      (a) => {
        intakeMs.push(performance.now() - t0);
        if (a.status >= 200 && a.status < 300) acknowledged.set(guid, at);
        else refused++;
      },
      () => {
        refused++;
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const started = performance.now();
  let maxBehind = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    maxBehind = Math.max(maxBehind, due - sent);
    while (sent < due) {
      sendOne();
      sent++;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  const sendSeconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  const drained = await receipts.waitFor(acknowledged.size, drainSeconds * 1000);
  const receivedDeliveries = new Set(receipts.receipts.map((r) => r.deliveryId));
  const lost = [...acknowledged.keys()].filter((g) => !receivedDeliveries.has(g)).length;
  const deliveryMs = receipts.receipts.flatMap((r) => {
    const at = acknowledged.get(r.deliveryId);
    return at === undefined ? [] : [r.at - at];
  });
  await rt.stop();
  const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: systemClock });
  const [dlq, left] = [queues.dlq.size(), queues.queue.size()];
  queues.close();
  if (left) console.log(`  ${left} messages still queued after the drain`);
  console.log(
    `  sent ${sent} in ${sendSeconds.toFixed(1)} s (${(sent / sendSeconds).toFixed(0)}/s achieved, at most ${maxBehind} due at once), acknowledged ${acknowledged.size}, received ${receivedDeliveries.size}${drained ? '' : ' (drain timed out)'}`,
  );
  console.log(
    `  intake latency p50 ${percentile(intakeMs, 50).toFixed(1)} ms, p99 ${percentile(intakeMs, 99).toFixed(1)} ms; delivery latency p50 ${percentile(deliveryMs, 50).toFixed(0)} ms, p99 ${percentile(deliveryMs, 99).toFixed(0)} ms`,
  );
  printFigures(`load ${rate}/s for ${seconds} s`, [
    {
      name: 'achieved send rate',
      value: sent / sendSeconds,
      unit: '/s',
      baseline: { name: 'target', value: rate },
      goal: '>= 0.95x',
      pass: sent / sendSeconds >= 0.95 * rate,
    },
    { name: 'refused deliveries (non-2xx or connection errors)', value: refused, unit: '', goal: '0', pass: refused === 0 },
    { name: 'lost events (acknowledged, never received)', value: lost, unit: '', goal: '0', pass: lost === 0 },
    { name: 'events received more than once', value: receipts.duplicates, unit: '', goal: '0', pass: receipts.duplicates === 0 },
    { name: 'dead letters', value: dlq, unit: '', goal: '0', pass: dlq === 0 },
    {
      name: 'intake latency p99',
      value: percentile(intakeMs, 99),
      unit: 'ms',
      goal: '< 10000 ms (the code host gives up at 10 s)',
      pass: percentile(intakeMs, 99) < 10_000,
    },
    { name: 'delivery latency p99', value: percentile(deliveryMs, 99), unit: 'ms', goal: 'informational', pass: true },
  ]);
  agent.destroy();
  await receipts.close();
  await github.close();
  rmSync(dataDir, { recursive: true, force: true });
}

runMain(main);
