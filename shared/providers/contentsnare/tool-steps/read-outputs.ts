import * as z from 'zod';
import { recordId } from '../schemas';
import { clientOutput, requestOutput } from './outputs';

/**
 * What the collection service's read steps hand on: the reference's request (with its counts
 * and pages), its fields as `GET /pages/{id}` gives them, and list pages. Built on first use.
 */

const maybe = () => z.string().nullable().optional();
const count = () => z.number().int().nullable().optional();

export const fieldOutput = () =>
  z.object({
    id: recordId,
    name: maybe(),
    type: maybe(),
    status: maybe().describe('todo, done, approved or redo'),
    required: z.boolean().nullable().optional(),
    values_flat: maybe().describe('The answer as text'),
    rejection_message: z.object({ text: maybe() }).nullable().optional(),
    section: maybe().describe('Name of the section it is in'),
  });

export const pageOutput = () =>
  z.object({
    id: recordId,
    name: maybe(),
    is_done: z.boolean().nullable().optional(),
    is_approved: z.boolean().nullable().optional(),
    fields_count: count(),
    done_fields_count: count(),
    fields: z.array(fieldOutput()).optional().describe('Its fields, when the page was read'),
  });

export const fullRequestOutput = () =>
  requestOutput()
    .omit({ sent: true, client: true, client_status: true })
    .extend({
      fields_count: count(),
      done_fields_count: count(),
      approved_fields_count: count(),
      redo_fields_count: count(),
      has_comments: z.boolean().nullable().optional(),
      clients: z
        .array(clientOutput().partial({ email: true }))
        .nullable()
        .optional(),
      pages: z.array(pageOutput()),
      pages_read: z.number().int().describe('How many pages were read with their fields (the first ones)'),
    });

export const listOutput = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    count: z.number().int(),
    total_count: z.number().int().nullable().describe('How many there are in all, as the service counts them'),
    next_offset: z.number().int().nullable().describe('Give as `offset` to read the next page; null when none is left'),
  });
