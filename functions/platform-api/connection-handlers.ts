import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { disconnect, type DisconnectOptions } from '../../shared/connections/disconnect';
import { updateConnection } from '../../shared/connections/update-connection';
import { listConnections } from '../../shared/connections/list-connections';
import { AppError } from '../../shared/domain/errors';
import { json } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { platformApiRouteTable } from './route-table';

type ConnectionRoutes = 'createConnection' | 'listConnections' | 'getConnection' | 'updateConnection' | 'disconnect';

/** `/connections` and `/connections/{id}`: the platform key only. */
export function connectionHandlers(
  ctx: AppContext,
  revoke: DisconnectOptions['revoke'],
): Pick<RouteHandlers<typeof platformApiRouteTable>, ConnectionRoutes> {
  const connections = new ConnectionRepo(ctx.store);
  return {
    createConnection: async (req) => json(201, await createTokenConnection(ctx, req.input)),
    listConnections: async (req) => json(200, { connections: await listConnections(connections, req.query) }),
    getConnection: async (req) => {
      const id = req.params.id ?? '';
      const found = await connections.get(id);
      if (!found) throw new AppError('connection_not_found', `No connection ${id}`);
      return json(200, found);
    },
    updateConnection: async (req) => json(200, await updateConnection(ctx, req.params.id ?? '', req.input)),
    disconnect: async (req) => json(200, await disconnect(ctx, req.params.id ?? '', { revoke })),
  };
}
