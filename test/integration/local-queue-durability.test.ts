import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileQueue } from '../../shared/adapters/local/file-queue';
import type { SyncFn } from '../../shared/adapters/local/queue-journal';
import { TestClock } from '../helpers/dynamo';

/**
 * Crash safety: the local queue acknowledges a send (which lets the intake answer the code
 * host 2xx) only once it is on disk, with one fsync shared by the sends of the same moment.
 * The fsync here is held by the test, so "not acknowledged before the flush" is checked
 * without timing.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function heldSync() {
  const pending: Array<(err: NodeJS.ErrnoException | null) => void> = [];
  const sync: SyncFn = (_fd, done) => pending.push(done);
  return { sync, pending };
}

function open(sync: SyncFn): FileQueue {
  const dir = mkdtempSync(join(tmpdir(), 'durable-'));
  dirs.push(dir);
  return FileQueue.open({ path: join(dir, 'q.queue.jsonl'), clock: new TestClock(), sync });
}

const tick = () => new Promise((r) => setImmediate(r));

/**
 * Waits (event-loop turns, no clock) until `state` holds: the end state the assertions that
 * follow are about, e.g. "the flush is waiting on its fsync", rather than a fixed number of
 * turns. Then one more turn, so every acknowledgement already due (a resolved promise's
 * callbacks) has run before the test looks for one that must not have happened.
 */
async function reached(what: string, state: () => boolean): Promise<void> {
  for (let i = 0; !state(); i++) {
    if (i >= 1000) throw new Error(`never reached: ${what}`);
    await tick();
  }
  await tick();
}

describe('local queue durability', () => {
  it('acknowledges a send only after its fsync, and shares one fsync among the sends of the same moment', async () => {
    const { sync, pending } = heldSync();
    const q = open(sync);
    const acked: number[] = [];
    const sends = Array.from({ length: 10 }, (_, i) => q.sendBatch([{ id: `m${i}`, body: `body ${i}` }]).then(() => acked.push(i)));
    await reached('the first flush waiting on its fsync', () => pending.length === 1);
    expect(acked).toEqual([]);
    expect(pending).toHaveLength(1);
    // The first flush covered the first send; the nine that came while it ran share the next one.
    pending.shift()!(null);
    await reached('the first send acknowledged and the second flush waiting on its fsync', () => acked.length > 0 && pending.length === 1);
    expect(acked).toEqual([0]);
    expect(pending).toHaveLength(1);
    pending.shift()!(null);
    await Promise.all(sends);
    expect(acked).toHaveLength(10);
    expect(pending).toHaveLength(0);
    q.close();
  });

  it('refuses the send (so the intake answers 5xx) when the flush fails', async () => {
    const { sync, pending } = heldSync();
    const q = open(sync);
    const send = q.sendBatch([{ id: 'm', body: 'b' }]);
    await reached('the flush waiting on its fsync', () => pending.length === 1);
    const eio = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    pending.shift()!(eio);
    await expect(send).rejects.toMatchObject({ code: 'unavailable' });
    q.close();
  });

  it('flushes with the real fsync by default', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'durable-'));
    dirs.push(dir);
    const q = FileQueue.open({ path: join(dir, 'q.queue.jsonl'), clock: new TestClock() });
    await Promise.all(Array.from({ length: 50 }, (_, i) => q.sendBatch([{ id: `m${i}`, body: `body ${i}` }])));
    expect(q.size()).toBe(50);
    q.close();
  });
});
