import * as z from 'zod';
import { listPage, parseAnswer } from '../schemas';

/** Paging inputs of the partner API's lists (`limit`, `offset`), with a lower cap than its default 200. */
export const pagingInput = {
  limit: z.number().int().min(1).max(200).default(50).describe('How many to return (default 50, at most 200)'),
  offset: z.number().int().min(0).max(1_000_000).default(0).describe('How many to skip: `next_offset` of an earlier answer'),
};

/** A `{pagination, results}` answer as the list steps return it. */
export function listed(data: unknown, what: string, offset: number, limit: number) {
  const page = parseAnswer(listPage, data, what);
  const total = typeof page.pagination.total_count === 'number' ? page.pagination.total_count : null;
  const end = offset + page.results.length;
  const more = total === null ? page.results.length >= limit : end < total;
  return { items: page.results, count: page.results.length, total_count: total, next_offset: more ? end : null };
}
