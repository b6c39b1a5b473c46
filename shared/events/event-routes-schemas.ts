import * as z from 'zod';
import { isTriggerId } from '../domain/triggers';
import { attemptSchema, eventStatuses, summaryFields } from '../store/event-history';

/**
 * The event-history routes' inputs and answers (docs/api.md, "Event history"): what each
 * route validates its query with, and what it answers, checked on the way out too. Times in
 * answers are ISO 8601 in UTC (`Z`).
 */

/** The most events one page holds; a larger `limit` is cut to this. */
export const maxEventsPerPage = 100;
export const defaultEventsPerPage = 25;
/** Rows one `GET /events` reads at most: with narrow filters a page may come back short, with a cursor to go on. */
export const eventsReadBudget = 500;

const id = z.string().min(1).max(128);

export const listEventsQuerySchema = z
  .object({
    trigger: z.string().max(100).refine(isTriggerId, 'not a trigger id (GET /triggers lists them)').optional(),
    status: z.enum(eventStatuses).optional(),
    repository: z
      .string()
      .max(200)
      .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected owner/name')
      .optional(),
    connectionId: id.optional(),
    agentId: id.optional(),
    limit: z
      .string()
      .regex(/^\d{1,6}$/, 'expected a whole number from 1')
      .transform(Number)
      .refine((n) => n >= 1, 'expected a whole number from 1')
      .transform((n) => Math.min(n, maxEventsPerPage))
      .optional(),
    cursor: z
      .string()
      .max(600)
      .regex(/^[A-Za-z0-9_-]+$/, 'not a cursor from a previous page')
      .optional(),
  })
  .strict();

/** The query parameters `GET /events` takes, for "did you mean". */
export const listEventsQueryNames = Object.keys(listEventsQuerySchema.shape);

const isoTime = z.string().datetime();

export const attemptViewSchema = attemptSchema.omit({ at: true, nextTryAt: true }).extend({
  at: isoTime,
  nextTryAt: isoTime.optional(),
});

export const eventSummaryViewSchema = z
  .object({
    id: z.string(),
    ...summaryFields,
    queuedAt: isoTime,
    updatedAt: isoTime,
    /** The latest attempt: its answer or reason, and when the next try is due. */
    lastAttempt: attemptViewSchema.optional(),
    nextTryAt: isoTime.optional(),
  })
  .strict();
export type EventSummaryView = z.infer<typeof eventSummaryViewSchema>;

export const listEventsAnswerSchema = z
  .object({
    events: z.array(eventSummaryViewSchema),
    /** Pass as `cursor` for the next (older) page; absent on the last page. */
    nextCursor: z.string().optional(),
  })
  .strict();
export type ListEventsAnswer = z.infer<typeof listEventsAnswerSchema>;

export const eventDetailAnswerSchema = eventSummaryViewSchema
  .extend({
    /** The newest attempts kept (`attemptCount` counts them all), oldest first. */
    attempts: z.array(attemptViewSchema),
    /** The trigger event as queued (the body the agent runtime receives), or null once it is no longer kept. */
    event: z.record(z.string(), z.unknown()).nullable(),
  })
  .strict();
export type EventDetailAnswer = z.infer<typeof eventDetailAnswerSchema>;

/** `POST /events/{id}/replay` takes no body (an empty JSON object at most). */
export const replayEventBodySchema = z.object({}).strict();

export const replayEventAnswerSchema = z
  .object({
    /** The new event's id: the same body, queued again, which says what it replays (`replayOf`). */
    id: z.string(),
    replayOf: z.string(),
    status: z.literal('queued'),
  })
  .strict();
export type ReplayEventAnswer = z.infer<typeof replayEventAnswerSchema>;

export const eventIdParamSchema = z.object({ id }).strict();
