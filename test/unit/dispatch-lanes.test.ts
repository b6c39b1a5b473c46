import { describe, expect, it } from 'vitest';
import { backoffSeconds, slowLaneBackoffSeconds } from '../../shared/dispatch/backoff';
import { postTimeoutMs } from '../../shared/dispatch/lane';
import { awsLanes, laneOfSource, mainLanePostTimeoutMs } from '../../shared/dispatch/lanes';
import type { ConsumerQueue, Queue } from '../../shared/ports';

const queue = (): Queue & ConsumerQueue => ({ sendBatch: async () => undefined, changeVisibility: async () => undefined });
const slowUrl = 'https://sqs.eu-west-1.amazonaws.com/123456789012/agent-integrations-prod-dispatch-slow-1a2b3c4d';

describe('the two lanes of the Lambda consumer', () => {
  it('tells the slow lane by its queue, whatever else the event source ARN says', () => {
    expect(laneOfSource('arn:aws:sqs:eu-west-1:123456789012:agent-integrations-prod-dispatch-slow-1a2b3c4d', slowUrl)).toBe('slow');
    expect(laneOfSource('arn:aws:sqs:eu-west-1:123456789012:agent-integrations-prod-dispatch-1a2b3c4d', slowUrl)).toBe('main');
    // Same name in another account is not ours.
    expect(laneOfSource('arn:aws:sqs:eu-west-1:999999999999:agent-integrations-prod-dispatch-slow-1a2b3c4d', slowUrl)).toBe('main');
    expect(laneOfSource(undefined, slowUrl)).toBe('main');
    expect(laneOfSource('arn:aws:sqs:eu-west-1:123456789012:x', undefined)).toBe('main');
  });

  it('never cuts a POST on the main lane before the full 10 s (a runtime still working would get the event twice); an unanswered event moves to the slow lane', () => {
    const main = queue();
    const slow = queue();
    const lanes = awsLanes(main, slow);
    expect(lanes.main).toMatchObject({ name: 'main', postTimeoutMs: mainLanePostTimeoutMs, consumer: main, queue: main, overflow: slow });
    expect(mainLanePostTimeoutMs).toBe(10_000);
    expect(lanes.slow).toMatchObject({ name: 'slow', postTimeoutMs, consumer: slow, queue: slow });
    expect(postTimeoutMs).toBe(10_000);
    expect(lanes.slow.overflow).toBeUndefined();
  });

  it('backs off on the slow lane from 30 s, doubling, capped at 15 minutes, and honours a longer Retry-After', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => slowLaneBackoffSeconds(n))).toEqual([30, 60, 120, 240, 480, 900, 900, 900]);
    expect(slowLaneBackoffSeconds(1, 200)).toBe(200);
    expect(slowLaneBackoffSeconds(1, 5_000)).toBe(900);
    expect([1, 2, 3].map((n) => backoffSeconds(n))).toEqual([5, 10, 20]);
  });
});
