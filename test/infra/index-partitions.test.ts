import { describe, expect, it } from 'vitest';
import type { TriggerEvent } from '../../shared/domain/model';
import { historyRowsOfQueued } from '../../shared/dispatch/fan-out';
import type { Item } from '../../shared/ports';
import { queuedSummary, summaryRow, withAttempt, withReplay } from '../../shared/store/event-history';
import { keys } from '../../shared/store/table-design';
import { synthStack } from './synth-stack';

/**
 * A partition of an index that every event writes caps the whole table at what one partition
 * takes (about 1,000 writes a second), and its throttling holds back the batch writes it rides
 * in. These walk the keys the store writes against the indexes the synthesized table has.
 */

const { template } = synthStack();
const [table] = Object.values(template.findResources('AWS::DynamoDB::Table')) as {
  Properties: { GlobalSecondaryIndexes: { IndexName: string; KeySchema: { AttributeName: string; KeyType: string }[] }[] };
}[];
/** Each index's partition key attribute, as the stack declares it. */
const indexPartitionKeys = (table?.Properties.GlobalSecondaryIndexes ?? []).map((ix) => ({
  index: ix.IndexName,
  attribute: ix.KeySchema.find((k) => k.KeyType === 'HASH')?.AttributeName as string,
}));

function event(n: number): TriggerEvent {
  return {
    id: `evt_p${n}`,
    trigger: n % 2 ? 'github.new_issue' : 'github.new_pull_request',
    subscriptionId: `sub_${n % 7}`,
    agentId: `agent-${n % 3}`,
    connectionId: `conn_${n % 10}`,
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-27T10:00:00.000Z',
    event: { repository: { full_name: 'octo/hello', owner: { login: 'octo' } }, issue: { number: n } },
  };
}

/** Every row the history writes for one event: queued, tried, delivered, replayed. */
function rowsOfOneEvent(e: TriggerEvent, now: number): Item[] {
  const [queued, body] = historyRowsOfQueued(e, JSON.stringify({ event: e }), now);
  const summary = queuedSummary(e, now);
  const failed = withAttempt(summary, { at: now + 1, outcome: 'failed', status: 503, nextTryAt: now + 60_000 }, 'retrying', now + 1);
  const delivered = withAttempt(failed, { at: now + 60_000, outcome: 'delivered', status: 200 }, 'delivered', now + 60_000);
  return [
    queued,
    body,
    summaryRow(failed, now + 1),
    summaryRow(delivered, now + 60_000),
    summaryRow(withReplay(delivered, 'evt_x', now + 90_000), now + 90_000),
  ].filter((r): r is Item => r !== undefined);
}

describe('index partitions', () => {
  it('finds the indexes of the synthesized table', () => {
    expect(indexPartitionKeys.map((ix) => ix.index)).toEqual(['gsi1', 'gsi2', 'gsi3']);
  });

  it('writes no index partition that every event shares: each row an event writes lands in partitions that spread over events', () => {
    const events = Array.from({ length: 200 }, (_, i) => event(i));
    const now = Date.parse('2026-11-27T10:00:00.000Z');
    const rows = events.map((e, i) => ({ id: e.id, rows: rowsOfOneEvent(e, now + i) }));
    for (const { index, attribute } of indexPartitionKeys) {
      const eventsByPartition = new Map<string, Set<string>>();
      for (const { id, rows: written } of rows) {
        for (const row of written) {
          const value = row[attribute];
          if (typeof value !== 'string') continue;
          eventsByPartition.set(value, (eventsByPartition.get(value) ?? new Set()).add(id));
        }
      }
      // A partition keyed by connection holds that connection's events (a tenth here); a shard about 1/16 of them.
      const largest = Math.max(0, ...[...eventsByPartition.values()].map((s) => s.size));
      expect(largest, `${index}: one partition takes ${largest} of ${events.length} events`).toBeLessThanOrEqual(events.length / 8);
    }
  });

  it('declares no constant index partition but the one the history listed every event in before its shards, only read', () => {
    const constants = Object.entries(keys)
      .filter(([, v]) => typeof v === 'string')
      .map(([name]) => name)
      .sort();
    // The listings of configuration are sharded (`listings`): their partitions from before are read, never written.
    expect(constants).toEqual(['legacyEventsList']);
    const perEvent = rowsOfOneEvent(event(1), Date.now());
    const partitions = perEvent.flatMap((row) => indexPartitionKeys.map(({ attribute }) => row[attribute]).filter((v) => v !== undefined));
    expect(partitions).not.toContain(keys.legacyEventsList);
  });
});
