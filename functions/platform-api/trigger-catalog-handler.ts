import { json } from '../../shared/http/responses';
import type { AppContext } from '../../shared/ports/app-context';
import { triggerCatalogOf } from '../../shared/ports/provider-contract';
import type { ExamplesLoader } from '../../shared/ports/trigger-examples';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { TriggerListing } from '../../shared/subscriptions/trigger-listing';
import type { platformApiRouteTable } from './route-table';

/** `GET /triggers`: the catalog with each trigger's example event. */
export function triggerCatalogHandler(
  ctx: AppContext,
  loadExamples: ExamplesLoader,
): Pick<RouteHandlers<typeof platformApiRouteTable>, 'listTriggers'> {
  // Built once per container: the catalog and its examples do not change while it runs. Loaded
  // on first use: the examples are ~140 KB of JSON that every other route's cold start would parse.
  let listing: TriggerListing[] | undefined;
  return {
    listTriggers: async () => {
      if (!listing) {
        const { triggerListing } = await import('../../shared/subscriptions/trigger-listing');
        listing = triggerListing(triggerCatalogOf(ctx.providers), await loadExamples());
      }
      return json(200, { triggers: listing });
    },
  };
}
