import type { AppContext } from '../../../ports/app-context';
import type { Connection } from '../../../domain/model';
import { present } from '../../../domain/present';
import { fetchListPage, type RateBudget } from './poll-fetch';
import { maxPollPages } from './poll-pages';

/** What one round read of a list with no order by time (a repository's watchers, its tags). */
export interface UnorderedRead {
  /** Items of the pages that changed since their stored ETag. */
  items: Record<string, unknown>[];
  /** The ETag of each page read, by page number - 1. */
  etags: string[];
  rate?: RateBudget;
}

/**
 * Every page of a list the code host does not order by time, so a new item may land on any
 * page: each page is read conditionally with its own stored ETag (an unchanged page answers
 * 304, free of rate limit), up to `maxPollPages` pages. `path` is the first page's path with
 * its query (`per_page=100`); later pages add `page=N`.
 */
export async function readUnorderedList(
  ctx: AppContext,
  connection: Connection,
  path: string,
  etags: readonly string[],
): Promise<UnorderedRead> {
  const out: UnorderedRead = { items: [], etags: [] };
  let next: string | undefined = path;
  for (let n = 0; n < maxPollPages && next; n++) {
    const page = await fetchListPage(ctx, connection, next, etags[n]);
    if (page.rate) out.rate = page.rate;
    if (page.kind === 'not_modified') {
      out.etags.push(present(etags[n], `stored ETag of page ${n + 1} (the page answered 304 to it)`));
      // Unchanged: nothing new on it. A 304 carries no Link, so go on only to pages read before.
      next = n + 1 < etags.length ? `${path}&page=${n + 2}` : undefined;
      continue;
    }
    out.items.push(...page.items);
    out.etags.push(page.etag ?? '');
    next = page.next;
  }
  return out;
}
