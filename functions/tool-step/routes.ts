import type { AppContext } from '../../shared/ports/app-context';
import type { Route } from '../../shared/http/types';
import { allProviderTools } from './registry';
import { toolRoutes } from '../../shared/tools/tool-routes';

/** `GET /tools` and `POST /tools/:toolId/invoke` over every provider's steps. */
export function routes(ctx: AppContext): Route[] {
  return toolRoutes(ctx, allProviderTools());
}
