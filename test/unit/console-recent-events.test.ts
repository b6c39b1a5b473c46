import { describe, expect, it, vi } from 'vitest';
import { refusedDeliveries } from '../../local/console/console-data';
import { maxRecentEvents, RecentEvents } from '../../local/console/recent-events';
import { consolePage } from '../../local/console/render';
import type { OutgoingMessage, Queue } from '../../shared/ports';

const clock = { now: () => 1_700_000_000_000 };
const sent: OutgoingMessage[] = [];
const queue: Queue = { sendBatch: async (m) => void sent.push(...m) };
const event = (id: string) =>
  JSON.stringify({
    id,
    trigger: 'github.new_issue',
    subscriptionId: 's',
    agentId: 'a',
    connectionId: 'c',
    deliveryId: 'd',
    occurredAt: 'x',
    event: {},
  });

describe('recent events (the console)', () => {
  it('records what the queue accepted, newest first, bounded, following claim-check pointers', async () => {
    const blobs = { get: async (key: string) => (key === 'events/evt_big.json' ? Buffer.from(event('evt_big')) : undefined) };
    const recent = new RecentEvents(clock, blobs);
    const q = recent.watch(queue);
    for (let i = 0; i < maxRecentEvents + 5; i++) await q.sendBatch([{ id: String(i), body: event(`evt_${i}`) }]);
    await q.sendBatch([{ id: 'p', body: JSON.stringify({ blobKey: 'events/evt_big.json' }) }]);
    const list = recent.list();
    expect(list).toHaveLength(maxRecentEvents);
    expect(list[0]?.eventId).toBe('evt_big');
    // Read from the blob store aside, after the send has answered.
    await vi.waitFor(() => expect(recent.get('evt_big')?.body).toBe(event('evt_big')));
    expect(recent.get('evt_0')).toBeUndefined();
    expect(sent).toHaveLength(maxRecentEvents + 6);
  });

  it('records nothing when the send fails, and marks replays', async () => {
    const recent = new RecentEvents(clock, { get: async () => undefined });
    const failing = recent.watch({ sendBatch: async () => Promise.reject(new Error('disk full')) });
    await expect(failing.sendBatch([{ id: '1', body: event('evt_x') }])).rejects.toThrow('disk full');
    expect(recent.list()).toEqual([]);
    recent.replaying('evt_r', 'evt_o');
    await recent.watch(queue).sendBatch([{ id: '1', body: event('evt_r') }]);
    expect(recent.get('evt_r')?.replayOf).toBe('evt_o');
  });

  it('never holds the send: a claim-check blob that does not answer leaves the event listed without its body', async () => {
    const recent = new RecentEvents(clock, { get: () => new Promise<Buffer | undefined>(() => undefined) });
    await recent.watch(queue).sendBatch([{ id: 'evt_stuck', body: JSON.stringify({ blobKey: 'events/evt_stuck.json' }) }]);
    expect(recent.get('evt_stuck')).toMatchObject({ eventId: 'evt_stuck' });
    expect(recent.get('evt_stuck')?.body).toBeUndefined();
  });

  it('takes the event id from the message id the producers give (the event id), without reading the body', async () => {
    const recent = new RecentEvents(clock, { get: async () => undefined });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      await recent.watch(queue).sendBatch([{ id: 'evt_named', body: event('evt_named') }]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    expect(recent.get('evt_named')?.body).toBe(event('evt_named'));
  });
});

describe('refused deliveries (the console)', () => {
  it('lists a delivery the intake refused for its shape with status refused and the reason, without a replay', async () => {
    const recent = new RecentEvents(clock, { get: async () => undefined });
    recent.refused({ pathId: 'ep_x', deliveryId: 'guid-9', event: 'issues', reason: 'shape', keys: ['issue', 'starred_at'] });
    const refused = refusedDeliveries(recent);
    expect(refused).toEqual([expect.objectContaining({ deliveryId: 'guid-9', event: 'issues', reason: 'shape: issue, starred_at' })]);
    const events = { events: [], query: new URLSearchParams() };
    const data = { connections: [], keys: [], subscriptions: [], events, refused, deadLetters: [], deadLetterDepth: 0 };
    const html = consolePage(data, { csrf: 'c', nonce: 'n', tools: [] });
    expect(html).toContain('s-refused');
    expect(html).toContain('shape: issue, starred_at');
    expect(html).not.toContain('/replay');
  });
});
