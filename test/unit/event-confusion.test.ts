import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { eventShapes, fitsEvent, subjectKeys } from '../../shared/providers/github/mapping/subject-guard';
import { mappingTable } from '../../shared/providers/github/mapping/table';
import { allExamples } from '../fixtures/webhooks/examples';
import { example } from '../fixtures/webhooks/examples';

/**
 * `X-GitHub-Event` is not signed: a signed body of one event sent under another event's
 * name must map to nothing (docs/security.md, section 5). Every documented example, sent under every
 * OTHER event name the mapping reads, fires no trigger.
 */
const mappedEvents = [...new Set([...mappingTable.keys()].map((k) => k.split('.')[0]!))].sort();

describe('a body sent under another event name maps to nothing', () => {
  it('a signed repository.created body sent as star is not a new star', () => {
    expect(mapDelivery({ event: 'star', payload: example('repository.created'), accountLogin: 'octocat' })).toEqual([]);
  });

  it('a delete body sent as create is not a new branch or tag', () => {
    expect(mapDelivery({ event: 'create', payload: example('delete'), accountLogin: 'octocat' })).toEqual([]);
  });

  it('a create body sent as push is not a push', () => {
    expect(mapDelivery({ event: 'push', payload: example('create'), accountLogin: 'octocat' })).toEqual([]);
  });

  it('every documented example, under every other mapped event name, maps to nothing', () => {
    const confused: string[] = [];
    for (const e of allExamples()) {
      for (const event of mappedEvents) {
        if (event === e.event) continue;
        const mapped = mapDelivery({ event, payload: e.payload, accountLogin: 'octocat' });
        if (mapped.length > 0) confused.push(`${e.set} ${e.key}#${e.index} as ${event} -> ${mapped.map((m) => m.trigger).join(',')}`);
      }
    }
    expect(confused).toEqual([]);
  });
});

interface Schema {
  required?: string[];
  properties?: Record<string, unknown>;
  oneOf?: Schema[];
  anyOf?: Schema[];
}

/** The webhooks section of the code host's OpenAPI description: event header -> its schemas (one per action). */
function publishedSchemas(): Map<string, Schema[]> {
  // Extracted from @octokit/openapi by test/fixtures/extract-github-openapi.ts (the description is not installed).
  const path = fileURLToPath(new URL('../fixtures/github-openapi-webhooks.json', import.meta.url));
  const spec = JSON.parse(readFileSync(path, 'utf8')) as {
    webhooks: Array<{ event: string; variants: Array<{ required: string[]; properties: string[] }> }>;
  };
  // The description spells three Projects (v2) events with `-`; the code host sends them with `_`.
  const header = (e: string) => e.replace(/^project-v2/, 'projects_v2').replace(/-/g, '_');
  const out = new Map<string, Schema[]>();
  for (const hook of spec.webhooks) {
    const event = header(hook.event);
    const variants: Schema[] = hook.variants.map((v) => ({
      required: v.required,
      properties: Object.fromEntries(v.properties.map((k) => [k, {}])),
    }));
    out.set(event, [...(out.get(event) ?? []), ...variants]);
  }
  return out;
}

/** Required top-level keys that name no event's subject: the envelope and words many events use. */
const generic = new Set([
  'action',
  'repository',
  'sender',
  'installation',
  'organization',
  'enterprise',
  'changes',
  'number',
  'description',
  'created_at',
  'updated_at',
  'id',
  'name',
  'state',
  'type',
  'reason',
  'status',
  'since',
  'source',
  'started_at',
  'completed_at',
  'effective_date',
  'scope',
  'target_type',
]);

describe('the guard tables are the published webhook schemas', () => {
  const schemas = publishedSchemas();

  it('subject keys: every required top-level key of any event that is not generic', () => {
    const published = new Set([...schemas.values()].flat().flatMap((s) => (s.required ?? []).filter((k) => !generic.has(k))));
    expect([...subjectKeys].filter((k) => k !== 'content_reference').sort()).toEqual([...published].sort());
  });

  it.each(Object.keys(eventShapes))('%s: must = required by every action, may = the other subject keys it documents', (event) => {
    const own = schemas.get(event);
    expect(own, event).toBeDefined();
    const shape = eventShapes[event]!;
    for (const s of own!) for (const key of shape.must) expect(s.required ?? [], `${event} requires ${key}`).toContain(key);
    const documented = new Set(own!.flatMap((s) => Object.keys(s.properties ?? {})).filter((k) => subjectKeys.has(k)));
    expect([...shape.must, ...shape.may].sort()).toEqual([...documented].sort());
  });

  it('every documented example fits its own event', () => {
    const misfits = allExamples()
      .filter((e) => !fitsEvent(e.event, e.payload))
      .map((e) => `${e.set} ${e.key}#${e.index}`);
    expect(misfits).toEqual([]);
  });
});
