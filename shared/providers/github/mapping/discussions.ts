import * as z from 'zod';
import { baseEvent, baseFacts, labelNames, occurrence, parse, type MapperTable } from './mapper';
import { commentSchema, envelopeSchema, labelSchema, userSchema } from './schemas';

/** Discussions: new_discussion on `discussion.created`, new_discussion_comment on `discussion_comment.created`. */

export const discussionSchema = z.object({
  id: z.number(),
  node_id: z.string().nullish(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.string().nullish(),
  html_url: z.string().nullish(),
  user: userSchema.nullish(),
  category: z.object({ name: z.string(), slug: z.string().nullish() }).nullish(),
  labels: z.array(labelSchema).nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});

export const discussionPayload = envelopeSchema.extend({ discussion: discussionSchema });
export const discussionCommentPayload = envelopeSchema.extend({
  discussion: discussionSchema,
  comment: commentSchema.extend({ parent_id: z.number().nullish() }),
});

export const discussionMappers: MapperTable = {
  'discussion.created': [
    (payload) => {
      const p = parse(discussionPayload, payload);
      if (!p) return [];
      const facts = { ...baseFacts(p), labels: labelNames(p.discussion.labels) ?? [] };
      return [occurrence('new_discussion', { ...baseEvent(p), discussion: p.discussion }, facts)];
    },
  ],
  'discussion_comment.created': [
    (payload) => {
      const p = parse(discussionCommentPayload, payload);
      if (!p) return [];
      const facts = { ...baseFacts(p), labels: labelNames(p.discussion.labels) ?? [] };
      return [occurrence('new_discussion_comment', { ...baseEvent(p), discussion: p.discussion, comment: p.comment }, facts)];
    },
  ],
};
