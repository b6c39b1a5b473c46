import { json } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { TriggerListing } from '../../shared/subscriptions/trigger-listing';
import type { platformApiRouteTable } from './route-table';

/** `GET /triggers`: the catalog with each trigger's example event. */
export function triggerCatalogHandler(): Pick<RouteHandlers<typeof platformApiRouteTable>, 'listTriggers'> {
  // Built once per container: the catalog and its examples do not change while it runs. Loaded
  // on first use: the examples are ~140 KB of JSON that every other route's cold start would parse.
  let listing: TriggerListing[] | undefined;
  return {
    listTriggers: async () => {
      if (!listing) {
        const [{ triggerListing }, { loadExample }] = await Promise.all([
          import('../../shared/subscriptions/trigger-listing'),
          import('../../shared/subscriptions/example-docs'),
        ]);
        listing = triggerListing(loadExample);
      }
      return json(200, { triggers: listing });
    },
  };
}
