import * as z from 'zod';
import { isLimitedToList, isRepositoryAllowed } from '../../../domain/allow-list';
import type { Connection } from '../../../domain/model';
import { maxItemsLimit, pageInput, type Listed } from './common';
import { listed } from './outputs';

/**
 * What the search steps share: the query and paging inputs, the answer's shape, and the
 * allow-list applied to the hits (a search reaches every repository the token can read, so a
 * connection limited to given repositories sees only their hits).
 */

export const searchInput = (example: string) => ({
  q: z
    .string()
    .min(1)
    .max(256)
    .describe(`Search query with the code host's qualifiers, e.g. ${example}; add repo:owner/name to search one repository`),
  order: z.enum(['asc', 'desc']).optional().describe('Sort order when `sort` is given'),
  ...pageInput,
  max_items: pageInput.max_items.describe(
    `Stop after this many hits (default 100, at most ${maxItemsLimit}; the code host serves the first 1,000 of any search)`,
  ),
});

/** The repository a hit belongs to, as the code host names it in the hit. */
export const hitRepository = () =>
  z.object({
    id: z.number().int().optional(),
    full_name: z.string().describe('owner/name'),
    private: z.boolean().optional(),
    html_url: z.string().optional(),
  });

/** A search step's answer: the hits within reach, the code host's counts, and how many hits were left out. */
export const searchListed = <T extends z.ZodType>(item: T) =>
  listed(item).extend({
    total_count: z.number().int().optional().describe('How many hits the code host counts in all'),
    incomplete_results: z.boolean().optional().describe('True when the code host timed out and the hits may be incomplete'),
    left_out: z.number().int().describe("Hits left out because they are outside the connection's repositories"),
  });

/** The hits in repositories the connection may act on; `repositoryOfHit` names a hit's `owner/name`. */
export function withinReach<T>(
  found: Listed<T>,
  connection: Connection,
  repositoryOfHit: (hit: T) => string | undefined,
): Listed<T> & { left_out: number } {
  if (!isLimitedToList(connection)) return { ...found, left_out: 0 };
  const items = found.items.filter((hit) => {
    const repository = repositoryOfHit(hit);
    return repository !== undefined && isRepositoryAllowed(connection, repository);
  });
  return { ...found, items, count: items.length, left_out: found.items.length - items.length };
}
