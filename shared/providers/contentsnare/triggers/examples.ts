import * as z from 'zod';
import { parseSnareDelivery } from '../mapping/snare-delivery';
import { snareMappedEvent, type Json, type SnareReadBack } from '../mapping/snare-events';
import type { MappedEvent } from '../../../domain/mapping/types';
import { snareEventName, type SnareTriggerId, type SnareTriggerName } from '../../../domain/triggers';
import all_fields_completed from './examples/all_fields_completed.json';
import client_created from './examples/client_created.json';
import client_updated from './examples/client_updated.json';
import comment_created from './examples/comment_created.json';
import field_approved from './examples/field_approved.json';
import field_completed from './examples/field_completed.json';
import field_rejected from './examples/field_rejected.json';
import request_completed from './examples/request_completed.json';
import request_published from './examples/request_published.json';
import request_reopened from './examples/request_reopened.json';
import request_viewed from './examples/request_viewed.json';

/**
 * The collection service's documented examples (examples/<event>.json): the
 * delivery the service posts (its help pages' payload shapes) and the records its API
 * answers when they are read back (`GET /requests/{id}`, `GET /pages/{id}`,
 * `GET /clients/{id}`). `GET /triggers` builds each example event from them through the real
 * mapping; the sandbox's simulated service holds the records, so `npm run trigger` sends a
 * delivery that reads back as it says.
 */
export interface SnareExample {
  delivery: Json;
  records: { requests?: Json[]; pages?: Json[]; clients?: Json[] };
}

// Static imports: a function's bundle carries them and nothing reads files at run time.
const docs: Record<SnareTriggerName, unknown> = {
  request_published,
  request_completed,
  all_fields_completed,
  request_reopened,
  request_viewed,
  field_completed,
  field_approved,
  field_rejected,
  comment_created,
  client_created,
  client_updated,
};

const exampleSchema = z.object({
  delivery: z.record(z.string(), z.unknown()),
  records: z.object({
    requests: z.array(z.record(z.string(), z.unknown())).optional(),
    pages: z.array(z.record(z.string(), z.unknown())).optional(),
    clients: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
});

export function loadSnareExample(trigger: SnareTriggerId): SnareExample {
  return exampleSchema.parse(docs[snareEventName(trigger)]) as SnareExample;
}

/** Every example's records, for a simulated service to hold. */
export function allSnareExampleRecords(): SnareExample['records'][] {
  return (Object.keys(docs) as SnareTriggerName[]).map((n) => loadSnareExample(`contentsnare.${n}`).records);
}

/** What reading the example's delivery back would answer, from its records (as shared/providers/contentsnare/read-back.ts reads them). */
export function exampleReadBack(example: SnareExample): { readBack: SnareReadBack; claimed?: Json; event: SnareTriggerName } | undefined {
  const parsed = parseSnareDelivery(example.delivery);
  if (parsed.kind !== 'delivery') return undefined;
  const d = parsed.delivery;
  const byId = (list: Json[] | undefined, id: string | undefined) => list?.find((r) => String(r.id) === id);
  const request = byId(example.records.requests, d.subject === 'request' ? d.id : d.requestId);
  if (d.subject === 'client') {
    const client = byId(example.records.clients, d.id);
    return client ? { event: d.event, readBack: { subject: 'client', client } } : undefined;
  }
  if (!request) return undefined;
  if (d.subject === 'request') return { event: d.event, readBack: { subject: 'request', request } };
  if (d.subject === 'comment') return { event: d.event, readBack: { subject: 'comment', request }, claimed: d.claimed ?? {} };
  const page = byId(example.records.pages, d.pageId);
  for (const section of (page?.sections as Json[] | undefined) ?? []) {
    const field = (section.fields as Json[] | undefined)?.find((f) => String(f.id) === d.fieldId);
    if (!field || !page) continue;
    const { fields: _f, ...sectionOnly } = section;
    const { sections: _s, ...pageOnly } = page;
    return { event: d.event, readBack: { subject: 'field', field, page: pageOnly, section: sectionOnly, request } };
  }
  return undefined;
}

/** The example as the intake would map it once read back. */
export function snareExampleMapped(trigger: SnareTriggerId): MappedEvent[] {
  const rb = exampleReadBack(loadSnareExample(trigger));
  return rb ? [snareMappedEvent(rb.event, rb.readBack, rb.claimed)] : [];
}
