import type { AppContext } from '../../shared/ports/app-context';
import { ApiKeyRepo } from '../../shared/store/api-key-repo';
import { createScopedKey, revokeScopedKey } from '../../shared/keys/scoped-keys';
import { json } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { platformApiRouteTable } from './route-table';

/** `/keys` and `/keys/{id}`: the platform key only. */
export function keyHandlers(ctx: AppContext): Pick<RouteHandlers<typeof platformApiRouteTable>, 'createKey' | 'listKeys' | 'revokeKey'> {
  return {
    createKey: async (req) => json(201, await createScopedKey(ctx, req.input)),
    listKeys: async () => json(200, { keys: await new ApiKeyRepo(ctx.store).list() }),
    revokeKey: async (req) => json(200, await revokeScopedKey(ctx.store, req.params.id ?? '')),
  };
}
