import * as z from 'zod';
import { baseEvent, baseFacts, compact, occurrence, parse, type MapperTable } from './mapper';
import { orgEnvelopeSchema, organizationSchema, repositorySchema, userSchema } from './schemas';

/**
 * Projects family.
 *
 * project_item_status_changed: a Projects (v2) item `edited` whose `changes.field_value`
 * names the Status field. Current payloads carry `field_name` ("Status") and
 * `field_type` ("single_select"); older ones (and the documented example) only the type.
 * Rule: every field that is present must fit (name "Status", any case; type single_select)
 * and at least one must be present. Other fields (Priority, dates, text) fire nothing.
 * These events come only to organization hooks.
 *
 * new_card_in_column: a classic card `created` in a column, or `moved` INTO another column
 * (`changes.column_id` present): to the column, both are a card added to it. A move within
 * the same column (reordering) fires nothing. The payload names the column by id only.
 */

const fieldValue = z.object({
  field_node_id: z.string().nullish(),
  field_type: z.string().nullish(),
  field_name: z.string().nullish(),
  project_number: z.number().nullish(),
  from: z.unknown().optional(),
  to: z.unknown().optional(),
});

const itemPayload = orgEnvelopeSchema.extend({
  projects_v2_item: z.object({
    id: z.number(),
    node_id: z.string().nullish(),
    project_node_id: z.string(),
    content_node_id: z.string().nullish(),
    content_type: z.string().nullish(),
    creator: userSchema.nullish(),
    updated_at: z.string().nullish(),
  }),
  changes: z.object({ field_value: fieldValue }),
});

export function isStatusChange(field: z.output<typeof fieldValue>): boolean {
  const name = field.field_name ?? undefined;
  const type = field.field_type ?? undefined;
  if (name === undefined && type === undefined) return false;
  return (name === undefined || name.trim().toLowerCase() === 'status') && (type === undefined || type === 'single_select');
}

const cardPayload = z.object({
  action: z.string().optional(),
  repository: repositorySchema.nullish(),
  organization: organizationSchema.nullish(),
  sender: userSchema.nullish(),
  project_card: z.object({
    id: z.number(),
    node_id: z.string().nullish(),
    note: z.string().nullish(),
    column_id: z.number(),
    column_url: z.string().nullish(),
    project_url: z.string().nullish(),
    content_url: z.string().nullish(),
    archived: z.boolean().nullish(),
    creator: userSchema.nullish(),
    created_at: z.string().nullish(),
  }),
  changes: z.object({ column_id: z.object({ from: z.number() }).nullish() }).nullish(),
});

export const projectMappers: MapperTable = {
  'projects_v2_item.edited': [
    (payload) => {
      const p = parse(itemPayload, payload);
      if (!p || !isStatusChange(p.changes.field_value)) return [];
      const item = p.projects_v2_item;
      const project = compact({ nodeId: item.project_node_id, number: p.changes.field_value.project_number ?? undefined });
      return [
        occurrence(
          'project_item_status_changed',
          { ...baseEvent(p), projects_v2_item: item, changes: p.changes },
          { ...baseFacts(p), project },
        ),
      ];
    },
  ],
  'project_card.created': [(payload) => card(payload, false)],
  'project_card.moved': [(payload) => card(payload, true)],
};

function card(payload: unknown, moved: boolean) {
  const p = parse(cardPayload, payload);
  if (!p || (moved && !p.changes?.column_id)) return [];
  const event = compact({ ...baseEvent(p), project_card: p.project_card, changes: p.changes });
  const facts = { ...baseFacts(p), column: { id: String(p.project_card.column_id) } };
  return [occurrence('new_card_in_column', event, facts)];
}
