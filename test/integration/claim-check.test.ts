import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxInlineBytes } from '../../shared/dispatch/event-message';
import { eventBody } from '../../shared/dispatch/sign-event';
import { maxBodyBytes } from '../../shared/http/node-http';
import { keys } from '../../shared/store/table-design';
import { sweepOnce } from '../../shared/sweep/sweep-once';
import { localJobs } from '../../local/jobs';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub, type FakeHook } from '../helpers/fake-github-server';
import { examplePayload } from '../helpers/signed-delivery';
import { signingSecret, startRuntime, subscribeOverApi, type TestRuntime } from '../helpers/runtime-support';

/**
 * Large payloads on the local runtime, over HTTP (RELIABILITY 13 and the entry point's limit):
 * an event too big for a queue message travels as a pointer to the same bytes in the blob
 * store (the data dir locally, S3 on AWS); a body over the entry point's 6 MB is answered
 * 413, leaves nothing behind, and is recovered by the redelivery sweep like any failed delivery.
 */
const token = 'ghp_claimCheckToken000000000000000000000000';
let github: FakeGitHub;
let agent: FakeAgentRuntime;
let rt: TestRuntime;
let hook: FakeHook;
let endpointId: string;

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  agent = await FakeAgentRuntime.start();
  // The consumer is run by hand, so the queued message can be looked at first.
  rt = await startRuntime({ GITHUB_API_URL: github.url, AGENT_RUNTIME_URL: agent.url }, false);
  ({ hook, endpointId } = await subscribeOverApi(rt.url, github, token));
});
afterAll(async () => {
  await rt.dispose();
  await agent.close();
  await github.close();
});

function issueWithBody(bytes: number): string {
  const payload = examplePayload('issues', 'opened') as { issue: { body: string } };
  payload.issue.body = 'x'.repeat(bytes);
  return JSON.stringify(payload);
}

describe('claim check and size limits on the local runtime', () => {
  it('R13: a 300 KB issue body travels as a pointer to the blob store; the agent runtime receives the same bytes; the blob goes once delivered', async () => {
    const res = await github.deliver(hook, 'issues', issueWithBody(300 * 1024), 'big-issue-1');
    expect(res.status).toBe(202);
    const [queued] = rt.queues.queue.peek(10);
    expect(rt.queues.queue.size()).toBe(1);
    const pointer = JSON.parse(queued!.body) as { blobKey: string };
    expect(Object.keys(pointer)).toEqual(['blobKey']);
    expect(Buffer.byteLength(queued!.body)).toBeLessThan(1024);
    const stored = await rt.ctx.blobs.get(pointer.blobKey);
    expect(stored!.length).toBeGreaterThan(maxInlineBytes);

    const consumer = localJobs(rt.ctx, rt.queues)[0]!;
    await consumer.runOnce();
    expect(agent.requests).toHaveLength(1);
    const received = agent.requests[0]!;
    expect(FakeAgentRuntime.signatureValid(received, signingSecret)).toBe(true);
    // Byte for byte what the intake stored aside, in the contract's field order.
    expect(received.body).toBe(eventBody(JSON.parse(stored!.toString('utf8'))));
    expect(JSON.stringify(JSON.parse(received.body).event)).toContain('x'.repeat(1000));
    expect(rt.queues.queue.size()).toBe(0);
    expect(await rt.ctx.blobs.get(pointer.blobKey)).toBeUndefined();
  });

  it('a body over the entry point limit is answered 413, claims and queues nothing, and the sweep asks the code host to redeliver it', async () => {
    const huge = issueWithBody(maxBodyBytes + 1024);
    // The entry point reads on (and drops) the rest of the upload, so the code host sees the 413.
    const { status } = await github.deliver(hook, 'issues', huge, 'huge-1');
    expect(status).toBe(413);
    expect(await rt.ctx.store.get(keys.deliveryClaim(endpointId, 'huge-1'))).toBeUndefined();
    expect(rt.queues.queue.size()).toBe(0);
    const blobs = join(rt.dataDir, 'blobs');
    expect(existsSync(blobs) ? readdirSync(blobs, { recursive: true }).filter((f) => String(f).endsWith('.json')) : []).toEqual([]);

    const report = await sweepOnce(rt.ctx);
    expect(report.redelivered).toBeGreaterThanOrEqual(1);
    const huge1 = github.deliveries.get(hook.id)!.find((d) => d.guid === 'huge-1')!;
    expect(github.redeliveries).toContainEqual({ hookId: hook.id, deliveryId: huge1.id });
    // The runtime is still healthy afterwards.
    expect((await fetch(`${rt.url}/healthz`)).status).toBe(200);
  });
});
