import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLocalQueues, type LocalQueues } from '../../shared/adapters/local/local-queues';
import { InvalidInputError } from '../../shared/domain/errors';
import { TestClock } from '../helpers/dynamo';

let dir: string;
let clock: TestClock;
const open: LocalQueues[] = [];

function queues(maxReceives?: number): LocalQueues {
  const q = openLocalQueues({ dir, name: 'dispatch', clock, maxReceives });
  open.push(q);
  return q;
}

function reopen(q: LocalQueues, maxReceives?: number): LocalQueues {
  q.close();
  return queues(maxReceives);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'queue-'));
  clock = new TestClock();
});

afterEach(() => {
  for (const q of open.splice(0)) {
    try {
      q.close();
    } catch {
      // already closed
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('local file queue', () => {
  it("takes the groups (tenants) in turn, oldest first within each, so one tenant's backlog does not hold back another's message; the groups survive a restart", async () => {
    let q = queues();
    await q.queue.sendBatch(Array.from({ length: 5 }, (_, i) => ({ id: `n${i}`, body: `noisy ${i}`, group: 'conn_noisy' })));
    await q.queue.sendBatch([
      { id: 'q', body: 'quiet', group: 'conn_quiet' },
      { id: 'u', body: 'ungrouped' },
    ]);
    q = reopen(q);
    const bodies = async (max: number) => (await q.queue.receive(max, 30)).map((m) => m.body);
    expect(await bodies(4)).toEqual(['noisy 0', 'quiet', 'ungrouped', 'noisy 1']);
    expect(await bodies(10)).toEqual(['noisy 2', 'noisy 3', 'noisy 4']);
  });

  it('hides a received message for the visibility timeout, then delivers it again with a higher receive count', async () => {
    const { queue } = queues();
    await queue.sendBatch([{ id: 'a', body: 'hello' }]);
    const [first] = await queue.receive(10, 30);
    expect(first).toMatchObject({ body: 'hello', receiveCount: 1, sentAt: clock.ms });
    expect(await queue.receive(10, 30)).toEqual([]);
    clock.advance(29_999);
    expect(await queue.receive(10, 30)).toEqual([]);
    clock.advance(1);
    const [second] = await queue.receive(10, 30);
    expect(second).toMatchObject({ messageId: first?.messageId, body: 'hello', receiveCount: 2 });
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
  });

  it('receives at most max messages, oldest first', async () => {
    const { queue } = queues();
    await queue.sendBatch(['1', '2', '3'].map((b) => ({ id: b, body: b })));
    expect((await queue.receive(2, 30)).map((m) => m.body)).toEqual(['1', '2']);
    expect((await queue.receive(2, 30)).map((m) => m.body)).toEqual(['3']);
  });

  it('keeps a delayed message hidden until its delay has passed', async () => {
    const { queue } = queues();
    await queue.sendBatch([
      { id: 'a', body: 'later', delaySeconds: 60 },
      { id: 'b', body: 'now' },
    ]);
    const [now] = await queue.receive(10, 30);
    expect(now?.body).toBe('now');
    await queue.delete(now!.receiptHandle);
    clock.advance(59_999);
    expect(await queue.receive(10, 30)).toEqual([]);
    clock.advance(1);
    expect((await queue.receive(10, 30)).map((m) => m.body)).toEqual(['later']);
  });

  it('deletes a message with its current receipt handle', async () => {
    const { queue } = queues();
    await queue.sendBatch([{ id: 'a', body: 'x' }]);
    const [m] = await queue.receive(1, 30);
    await queue.delete(m!.receiptHandle);
    clock.advance(60_000);
    expect(await queue.receive(10, 30)).toEqual([]);
    expect(queue.size()).toBe(0);
  });

  it('does not let a stale receipt handle delete or postpone a message received again since', async () => {
    const { queue } = queues();
    await queue.sendBatch([{ id: 'a', body: 'x' }]);
    const [stale] = await queue.receive(1, 30);
    clock.advance(30_000);
    const [fresh] = await queue.receive(1, 30);
    await queue.delete(stale!.receiptHandle);
    await queue.changeVisibility(stale!.receiptHandle, 600);
    expect(queue.size()).toBe(1);
    clock.advance(30_000);
    const [again] = await queue.receive(1, 30);
    expect(again).toMatchObject({ messageId: fresh?.messageId, receiveCount: 3 });
  });

  it('changes the visibility of a message in flight (postpone, or release at once with 0)', async () => {
    const { queue } = queues();
    await queue.sendBatch([{ id: 'a', body: 'x' }]);
    const [m] = await queue.receive(1, 30);
    await queue.changeVisibility(m!.receiptHandle, 120);
    clock.advance(119_000);
    expect(await queue.receive(1, 30)).toEqual([]);
    clock.advance(1_000);
    const [again] = await queue.receive(1, 30);
    await queue.changeVisibility(again!.receiptHandle, 0);
    expect(await queue.receive(1, 30)).toHaveLength(1);
  });

  it('moves a message received more than maxReceives times to the dead-letter queue intact', async () => {
    const { queue, deadLetters, dlq } = queues(3);
    await queue.sendBatch([{ id: 'a', body: '{"event":"push","n":1}' }]);
    const sentAt = clock.ms;
    for (let i = 1; i <= 3; i++) {
      const [m] = await queue.receive(1, 10);
      expect(m?.receiveCount).toBe(i);
      clock.advance(10_000);
    }
    expect(await queue.receive(1, 10)).toEqual([]);
    expect(queue.size()).toBe(0);
    expect(dlq.size()).toBe(1);
    const [dead] = await deadLetters.list(10);
    expect(dead).toMatchObject({ body: '{"event":"push","n":1}', receiveCount: 3, sentAt });
  });

  it('moves a message postponed on its last receive to the dead-letter queue at once, not when its postponement ends', async () => {
    const { queue, deadLetters } = queues(3);
    await queue.sendBatch([{ id: 'a', body: '{"event":"push","n":1}' }]);
    for (let i = 1; i < 3; i++) {
      const [m] = await queue.receive(1, 10);
      await queue.changeVisibility(m!.receiptHandle, 5);
      clock.advance(5_000);
    }
    const [last] = await queue.receive(1, 10);
    expect(last?.receiveCount).toBe(3);
    // The backoff a failed last try asks for: the dispatch has already written the event `dead_lettered`.
    await queue.changeVisibility(last!.receiptHandle, 640);
    expect(queue.size()).toBe(0);
    expect(await deadLetters.list(10)).toMatchObject([{ messageId: last!.messageId, body: '{"event":"push","n":1}', receiveCount: 3 }]);
  });

  it('redrives dead letters back to the source queue, where they can be received again', async () => {
    const { queue, deadLetters } = queues(1);
    await queue.sendBatch([
      { id: 'a', body: 'one' },
      { id: 'b', body: 'two' },
    ]);
    await queue.receive(10, 10);
    clock.advance(10_000);
    expect(await queue.receive(10, 10)).toEqual([]);
    const dead = await deadLetters.list(10);
    expect(dead.map((d) => d.body)).toEqual(['one', 'two']);

    expect(await deadLetters.redrive([dead[1]!.messageId])).toBe(1);
    expect((await deadLetters.list(10)).map((d) => d.body)).toEqual(['one']);
    const [back] = await queue.receive(10, 10);
    expect(back).toMatchObject({ messageId: dead[1]!.messageId, body: 'two', receiveCount: 1 });

    expect(await deadLetters.redrive()).toBe(1);
    expect(await deadLetters.list(10)).toEqual([]);
    expect((await queue.receive(10, 10)).map((m) => m.body)).toEqual(['one']);
  });

  it('keeps messages, in-flight state and deletions across close and reopen', async () => {
    let q = queues();
    await q.queue.sendBatch([
      { id: 'a', body: 'kept' },
      { id: 'b', body: 'deleted' },
      { id: 'c', body: 'delayed', delaySeconds: 60 },
    ]);
    const received = await q.queue.receive(2, 30);
    const deleted = received.find((m) => m.body === 'deleted')!;
    await q.queue.delete(deleted.receiptHandle);

    q = reopen(q);
    expect(await q.queue.receive(10, 30)).toEqual([]);
    clock.advance(30_000);
    const [kept] = await q.queue.receive(10, 30);
    expect(kept).toMatchObject({ body: 'kept', receiveCount: 2 });
    clock.advance(30_000);
    expect((await q.queue.receive(10, 30)).map((m) => m.body).sort()).toEqual(['delayed', 'kept']);

    q = reopen(q);
    expect(q.queue.size()).toBe(2);
    clock.advance(30_000);
    expect((await q.queue.receive(10, 30)).map((m) => m.body)).not.toContain('deleted');
  });

  it('keeps a receipt handle valid across reopen, and dead letters too', async () => {
    let q = queues(1);
    await q.queue.sendBatch([
      { id: 'a', body: 'x' },
      { id: 'b', body: 'y' },
    ]);
    const [x, y] = await q.queue.receive(10, 30);
    q = reopen(q, 1);
    await q.queue.delete(x!.receiptHandle);
    clock.advance(30_000);
    expect(await q.queue.receive(10, 30)).toEqual([]);
    q = reopen(q, 1);
    expect((await q.deadLetters.list(10)).map((d) => [d.messageId, d.body])).toEqual([[y!.messageId, 'y']]);
  });

  it('keeps what a killed process sent, received and deleted', async () => {
    const script = join(dir, 'child.mts');
    const lib = resolve('shared/adapters/local/local-queues.ts');
    writeFileSync(
      script,
      `import { openLocalQueues } from ${JSON.stringify(lib)};
const { queue } = openLocalQueues({ dir: ${JSON.stringify(dir)}, name: 'dispatch', clock: { now: () => ${clock.ms} } });
await queue.sendBatch([{ id: 'a', body: 'in-flight' }, { id: 'b', body: 'deleted' }, { id: 'c', body: 'waiting' }]);
const [a, b] = await queue.receive(2, 30);
await queue.delete(b.receiptHandle);
process.kill(process.pid, 'SIGKILL');
`,
    );
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    const { queue } = queues();
    expect((await queue.receive(10, 30)).map((m) => m.body)).toEqual(['waiting']);
    clock.advance(30_000);
    expect(await queue.receive(10, 30)).toMatchObject([
      { body: 'in-flight', receiveCount: 2 },
      { body: 'waiting', receiveCount: 2 },
    ]);
  });

  it('ignores a line torn by a kill mid-write and goes on appending cleanly', async () => {
    const q = queues();
    await q.queue.sendBatch([{ id: 'a', body: 'whole' }]);
    q.close();
    appendFileSync(join(dir, 'dispatch.queue.jsonl'), '{"t":"put","m":{"id":"torn","bo');
    const q2 = queues();
    await q2.queue.sendBatch([{ id: 'b', body: 'after' }]);
    const q3 = reopen(q2);
    expect((await q3.queue.receive(10, 30)).map((m) => m.body)).toEqual(['whole', 'after']);
  });

  it('compacts its journal so it does not grow with every receive', async () => {
    const q = openLocalQueues({ dir, name: 'small', clock, compactAfter: 20, maxReceives: 1000 });
    open.push(q);
    await q.queue.sendBatch([{ id: 'a', body: 'x' }]);
    for (let i = 0; i < 100; i++) {
      const [m] = await q.queue.receive(1, 1);
      await q.queue.changeVisibility(m!.receiptHandle, 0);
    }
    const lines = readFileSync(join(dir, 'small.queue.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(21);
    expect((await q.queue.receive(1, 1))[0]).toMatchObject({ body: 'x', receiveCount: 101 });
  });

  it('wakes a waiting consumer when a message is sent', async () => {
    const { queue } = queues();
    // A wait far longer than the test timeout: only the send can end it.
    const woke = queue.waitForMessages(10 * 60_000);
    await queue.sendBatch([{ id: 'a', body: 'x' }]);
    await woke;
    expect(await queue.receive(1, 30)).toHaveLength(1);
  });

  it('refuses a batch with duplicate ids, an empty or oversized body, or a bad delay', async () => {
    const { queue } = queues();
    await expect(
      queue.sendBatch([
        { id: 'a', body: 'x' },
        { id: 'a', body: 'y' },
      ]),
    ).rejects.toThrow(/messages.1.id/);
    await expect(queue.sendBatch([{ id: 'a', body: 'z'.repeat(256 * 1024 + 1) }])).rejects.toBeInstanceOf(InvalidInputError);
    await expect(queue.sendBatch([{ id: 'a', body: '' }])).rejects.toThrow(/messages.0.body/);
    await expect(queue.sendBatch([{ id: 'a', body: 'x', delaySeconds: 901 }])).rejects.toThrow(/delaySeconds/);
    expect(queue.size()).toBe(0);
  });
});
