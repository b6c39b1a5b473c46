import { describe, expect, it } from 'vitest';
import { summaryView } from '../../shared/events/event-history-api';
import { eventSummaryViewSchema } from '../../shared/events/event-routes-schemas';
import { type EventSummary, eventSummarySchema, summaryFields } from '../../shared/store/event-history';

const full: EventSummary = {
  eventId: 'evt_1',
  trigger: 'github.new_issue',
  status: 'replayed',
  subscriptionId: 'sub_1',
  connectionId: 'conn_1',
  agentId: 'agent-1',
  repository: 'octo-org/hello-world',
  organization: 'octo-org',
  deliveryId: 'd-1',
  occurredAt: '2026-11-27T10:00:00.000Z',
  attemptCount: 1,
  previousStatus: 'delivered',
  replayOf: 'evt_0',
  replayedBy: ['evt_2'],
  queuedAt: Date.parse('2026-11-27T10:00:01.000Z'),
  updatedAt: Date.parse('2026-11-27T10:00:02.000Z'),
  attempts: [{ at: Date.parse('2026-11-27T10:00:01.500Z'), outcome: 'delivered', status: 200 }],
};

describe("the event summary's fields are defined once", () => {
  it('the stored row and the answer take each shared field from the one list', () => {
    for (const [name, schema] of Object.entries(summaryFields)) {
      expect(eventSummarySchema.shape[name as keyof typeof eventSummarySchema.shape], name).toBe(schema);
      expect(eventSummaryViewSchema.shape[name as keyof typeof eventSummaryViewSchema.shape], name).toBe(schema);
    }
  });

  it('the answer carries every shared field of a stored summary, unchanged, and validates', () => {
    const view = summaryView(full);
    for (const name of Object.keys(summaryFields)) expect(view[name as keyof typeof view], name).toEqual(full[name as keyof EventSummary]);
    expect(eventSummaryViewSchema.parse(view)).toEqual(view);
    expect(view).toMatchObject({ id: 'evt_1', queuedAt: '2026-11-27T10:00:01.000Z', lastAttempt: { status: 200 } });
  });

  it('a field a summary does not have is left out of the answer, not answered as undefined', () => {
    const { repository: _r, organization: _o, previousStatus: _p, replayOf: _f, replayedBy: _b, ...bare } = full;
    const view = summaryView({ ...bare, status: 'queued' });
    for (const name of ['repository', 'organization', 'previousStatus', 'replayOf', 'replayedBy']) expect(name in view, name).toBe(false);
  });
});
