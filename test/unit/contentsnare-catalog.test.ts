import { describe, expect, it } from 'vitest';
import { levelsOf, observe, type SnareReadBack } from '../../shared/providers/contentsnare/mapping/snare-events';
import { triggerCatalog } from '../../shared/wiring/providers';
import { snareTriggerIds } from '../../shared/domain/triggers';
import { loadSnareExample } from '../../shared/providers/contentsnare/triggers/examples';
import { triggerListing } from '../../shared/subscriptions/trigger-listing';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';

const examples = await loadProviderExamples();

describe('the collection-service triggers in the catalog', () => {
  const listing = triggerListing(triggerCatalog, examples);

  it('lists the eleven triggers by the partner API event name, each with a title, when it fires, its filters and an example event built from the records as read back', () => {
    const snare = listing.filter((l) => l.id.startsWith('contentsnare.'));
    expect(snare.map((l) => l.id)).toEqual([...snareTriggerIds]);
    for (const l of snare) {
      expect(l.title.length).toBeGreaterThan(3);
      expect(l.description.length).toBeGreaterThan(10);
      expect(l.targets).toEqual(['account']);
      expect(l.delivery).toBe('webhook');
      expect(l.exampleEvent).not.toBeNull();
      const example = l.exampleEvent as { trigger: string; event: Record<string, any> };
      expect(example.trigger).toBe(l.id);
      const records = loadSnareExample(l.id as (typeof snareTriggerIds)[number]).records;
      // The event carries the record as the API answers it, not the delivery's body.
      const subject = example.event.client ?? example.event.request;
      const stored = [...(records.clients ?? []), ...(records.requests ?? [])].find((r) => r.id === subject.id);
      expect(subject).toEqual(stored);
    }
    expect(snare.find((l) => l.id === 'contentsnare.request_completed')?.filters).toEqual(['template', 'folder', 'client']);
  });

  it('says which triggers the scheduled check cannot recover, and why', () => {
    for (const id of snareTriggerIds) {
      const def = triggerCatalog[id];
      if (def.recoverable) expect(def.includes).toContain('recovered by the scheduled check');
      else expect(def.includes).toMatch(/Not recoverable: .{10,}/);
    }
    expect(snareTriggerIds.filter((id) => triggerCatalog[id].recoverable)).toEqual([
      'contentsnare.request_published',
      'contentsnare.request_completed',
      'contentsnare.all_fields_completed',
      'contentsnare.request_reopened',
    ]);
  });
});

describe('episodes: once per change of a record', () => {
  const request = (status: string, updatedAt: string): SnareReadBack => ({
    subject: 'request',
    request: { id: 'req_1', status, updated_at: updatedAt, fields_count: 2, done_fields_count: status === 'completed' ? 2 : 1 },
  });
  const step = (memory: ReturnType<typeof observe>['next'], rb: SnareReadBack, delivered?: 'request_completed' | 'request_reopened') =>
    observe(
      memory,
      levelsOf(rb, delivered, memory),
      delivered ? { trigger: delivered, mark: String((rb as any).request.updated_at) } : undefined,
    );

  it('a redelivery of the same completion is the same episode; a completion after a reopening seen in between is the next', () => {
    const a = step({}, request('completed', 't1'), 'request_completed');
    expect(a.episodes.request_completed).toMatchObject({ n: 1, fresh: true });
    const again = step(a.next, request('completed', 't1'), 'request_completed');
    expect(again.episodes.request_completed).toMatchObject({ n: 1, fresh: false });
    const reopened = step(again.next, request('published', 't2'));
    expect(reopened.episodes.request_completed).toBeUndefined();
    expect(reopened.episodes.request_reopened).toMatchObject({ n: 1, fresh: true });
    const completedAgain = step(reopened.next, request('completed', 't3'));
    expect(completedAgain.episodes.request_completed).toMatchObject({ n: 2, fresh: true });
  });

  it('a delivery of a completion whose request changed since the last one (the reopening unseen) is the next episode; the check alone is not', () => {
    const a = step({}, request('completed', 't1'), 'request_completed');
    expect(step(a.next, request('completed', 't9')).episodes.request_completed).toMatchObject({ n: 1, fresh: false });
    expect(step(a.next, request('completed', 't9'), 'request_completed').episodes.request_completed).toMatchObject({ n: 2, fresh: true });
  });

  it('a reopening is recognised from its delivery, or by the check only after it saw the request completed', () => {
    expect(step({}, request('published', 't1')).episodes.request_reopened).toBeUndefined();
    expect(step({}, request('published', 't1'), 'request_reopened').episodes.request_reopened).toMatchObject({ n: 1 });
  });
});
