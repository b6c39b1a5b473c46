import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLocalQueues } from '../../shared/adapters/local/local-queues';
import type { TriggerEvent } from '../../shared/domain/model';
import { systemClock } from '../../shared/ports';
import { runDlqCommand } from '../../local/cli/dlq';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { startRuntime, until, type TestRuntime } from '../helpers/runtime-support';

const event: TriggerEvent = {
  id: 'evt_deadletter0001',
  trigger: 'github.new_issue',
  subscriptionId: 'sub_deadletter0001',
  agentId: 'agent-1',
  connectionId: 'con_deadletter0001',
  deliveryId: 'd-0001',
  occurredAt: '2024-05-01T10:00:00.000Z',
  event: { action: 'opened', issue: { number: 1 } },
};

/** One trigger event dead-lettered the way the consumer does it: received past maxReceives, never deleted. */
async function deadLetterOne(dataDir: string): Promise<string> {
  const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: systemClock, maxReceives: 1 });
  try {
    await queues.queue.sendBatch([{ id: event.id, body: JSON.stringify(event) }]);
    const [first] = await queues.queue.receive(1, 0);
    expect(await queues.queue.receive(1, 0)).toEqual([]);
    expect(queues.dlq.size()).toBe(1);
    return first!.messageId;
  } finally {
    queues.close();
  }
}

/** A URL where nothing listens (connection refused): no runtime running. */
async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

describe('npm run dlq on the local queue files (no runtime running)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'dlq-cli-'));
    env = { DATA_DIR: dataDir, LOCAL_URL: await closedUrl() };
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('lists a dead letter with its message id, receive count, trigger, subscription, event id and first-sent time', async () => {
    const messageId = await deadLetterOne(dataDir);
    const lines: string[] = [];
    expect(await runDlqCommand(['list'], { env, out: (l) => lines.push(l) })).toBe(0);
    const text = lines.join('\n');
    expect(text).toContain('1 dead letter:');
    expect(text).toContain(`message ${messageId}`);
    expect(text).toContain('received 1x');
    expect(text).toContain(`trigger github.new_issue  subscription ${event.subscriptionId}  event ${event.id}`);
    expect(text).toMatch(/first sent \d{4}-\d\d-\d\dT/);
  });

  it('redrives it back to the main queue, where it can be received again', async () => {
    const messageId = await deadLetterOne(dataDir);
    const lines: string[] = [];
    expect(await runDlqCommand(['redrive', '--id', messageId], { env, out: (l) => lines.push(l) })).toBe(0);
    expect(lines.join('\n')).toContain('Redrove 1 message to the dispatch queue.');
    const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: systemClock });
    try {
      expect(queues.dlq.size()).toBe(0);
      const [again] = await queues.queue.receive(1, 30);
      expect(again).toMatchObject({ messageId, receiveCount: 1 });
      expect(JSON.parse(again!.body)).toEqual(event);
    } finally {
      queues.close();
    }
  });

  it('redrives only the ids given', async () => {
    await deadLetterOne(dataDir);
    const lines: string[] = [];
    await runDlqCommand(['redrive', '--id', 'not-a-dead-letter'], { env, out: (l) => lines.push(l) });
    expect(lines.join('\n')).toContain('Redrove 0 messages');
  });

  it('answers usage and exit code 2 for an unknown command', async () => {
    const lines: string[] = [];
    expect(await runDlqCommand(['purge'], { env, out: (l) => lines.push(l) })).toBe(2);
    expect(lines.join('\n')).toContain('usage: npm run dlq -- list|redrive');
  });

  it('works as a command: tsx local/cli/dlq.ts list', async () => {
    await deadLetterOne(dataDir);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'local/cli/dlq.ts', 'list'], {
      env: { ...process.env, ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(stdout).toContain(`subscription ${event.subscriptionId}`);
  });
});

describe('npm run dlq against the running local runtime', () => {
  let rt: TestRuntime;
  let agent: FakeAgentRuntime;
  afterEach(async () => {
    await rt?.dispose();
    await agent?.close();
  });

  it('lists through the admin route, and a redriven event is delivered to the agent runtime', async () => {
    agent = await FakeAgentRuntime.start();
    rt = await startRuntime({ AGENT_RUNTIME_URL: agent.url });
    // The runtime owns its queue files while it runs: the dead letter goes in through its own DLQ.
    await rt.queues.dlq.sendBatch([{ id: event.id, body: JSON.stringify(event) }]);
    const env = { LOCAL_URL: rt.url, PLATFORM_API_KEY: 'reliability-platform-key-0123456789abcdef' };

    const listed: string[] = [];
    expect(await runDlqCommand(['list'], { env, out: (l) => listed.push(l) })).toBe(0);
    expect(listed.join('\n')).toContain(`Local runtime at ${rt.url}`);
    expect(listed.join('\n')).toContain(`event ${event.id}`);

    const redriven: string[] = [];
    expect(await runDlqCommand(['redrive'], { env, out: (l) => redriven.push(l) })).toBe(0);
    expect(redriven.join('\n')).toContain('Redrove 1 message(s)');
    await until('the redriven event reaches the agent runtime', () => agent.events().some((e) => e.id === event.id));
    expect(rt.queues.dlq.size()).toBe(0);
  });

  it('says so when the platform key is wrong', async () => {
    rt = await startRuntime();
    const lines: string[] = [];
    expect(await runDlqCommand(['list'], { env: { LOCAL_URL: rt.url, PLATFORM_API_KEY: 'wrong' }, out: (l) => lines.push(l) })).toBe(1);
    expect(lines.join('\n')).toContain('answered 401');
  });
});
