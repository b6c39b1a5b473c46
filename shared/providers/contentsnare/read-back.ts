import * as z from 'zod';
import { AppError } from '../../domain/errors';
import type { SnareDelivery } from './mapping/snare-delivery';
import type { Json, SnareReadBack } from './mapping/snare-events';
import type { ContentSnareClient } from './client';
import { parseAnswer, recordId } from './schemas';

/**
 * Reads back, through the connection's own client (its token, its account's rate limit),
 * the records a delivery names: `GET /requests/{id}`, `GET /clients/{id}`, and for a field
 * `GET /pages/{page_id}` (the reference has no field endpoint: fields are read through their
 * page) plus the request, which must list that page. A record the connection cannot see
 * (404, 403) or that does not hold together (a field not on the page, a page not in the
 * request, a record answered under another id) is `unseen`: nothing is dispatched for it.
 */

export type ReadBackOutcome = { kind: 'seen'; readBack: SnareReadBack } | { kind: 'unseen'; why: string };

const record = z.looseObject({ id: recordId });
const fieldShape = z.looseObject({ id: recordId, status: z.unknown().optional() });
const pageShape = z.looseObject({
  id: recordId,
  sections: z.array(z.looseObject({ id: recordId.optional(), fields: z.array(fieldShape).optional() })).optional(),
});

const unseen = (why: string): ReadBackOutcome => ({ kind: 'unseen', why });

/** One record by path, or undefined when the connection cannot see it. */
async function readRecord(client: ContentSnareClient, path: string, id: string): Promise<Json | undefined> {
  try {
    const res = await client.request({ method: 'GET', endpoint: `${path}/${encodeURIComponent(id)}` });
    const parsed = parseAnswer(record, res.data, `GET ${path}/{id}`);
    // An answer about another record than the one asked for is no confirmation of this one.
    return String(parsed.id) === id ? (parsed as Json) : undefined;
  } catch (e) {
    if (e instanceof AppError && (e.code === 'not_found' || e.code === 'forbidden')) return undefined;
    throw e;
  }
}

export async function readBack(client: ContentSnareClient, d: SnareDelivery): Promise<ReadBackOutcome> {
  switch (d.subject) {
    case 'request': {
      const request = await readRecord(client, '/requests', d.id ?? '');
      return request ? { kind: 'seen', readBack: { subject: 'request', request } } : unseen('request not visible');
    }
    case 'client': {
      const c = await readRecord(client, '/clients', d.id ?? '');
      return c ? { kind: 'seen', readBack: { subject: 'client', client: c } } : unseen('client not visible');
    }
    case 'field': {
      const found = await fieldOnPage(client, d.pageId ?? '', d.fieldId ?? '');
      if (!found) return unseen('field not on the named page, or page not visible');
      const request = await readRecord(client, '/requests', d.requestId ?? '');
      if (!request) return unseen('request not visible');
      if (!listsPage(request, d.pageId ?? '')) return unseen('the page is not one of the request');
      return { kind: 'seen', readBack: { subject: 'field', ...found, request } };
    }
    case 'comment': {
      const request = await readRecord(client, '/requests', d.requestId ?? '');
      if (!request) return unseen('request not visible');
      if (request.comments_enabled !== true && request.has_comments !== true) return unseen('the request takes no comments');
      let field: Json | undefined;
      if (d.fieldId !== undefined && d.pageId !== undefined) {
        const found = await fieldOnPage(client, d.pageId, d.fieldId);
        if (!found || !listsPage(request, d.pageId)) return unseen('field not on the request');
        field = found.field;
      }
      return { kind: 'seen', readBack: { subject: 'comment', request, ...(field ? { field } : {}) } };
    }
  }
}

async function fieldOnPage(
  client: ContentSnareClient,
  pageId: string,
  fieldId: string,
): Promise<{ field: Json; page: Json; section?: Json } | undefined> {
  const raw = await readRecord(client, '/pages', pageId);
  if (!raw) return undefined;
  const page = parseAnswer(pageShape, raw, 'GET /pages/{id}');
  for (const section of page.sections ?? []) {
    const field = (section.fields ?? []).find((f) => String(f.id) === fieldId);
    if (field) {
      const { fields: _fields, ...sectionOnly } = section;
      const { sections: _sections, ...pageOnly } = raw;
      return { field: field as Json, page: pageOnly, section: sectionOnly as Json };
    }
  }
  return undefined;
}

function listsPage(request: Json, pageId: string): boolean {
  const pages = Array.isArray(request.pages) ? (request.pages as Json[]) : [];
  return pages.some((p) => String(p?.id) === pageId);
}
