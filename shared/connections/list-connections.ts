import * as z from 'zod';
import { endUserIdSchema } from '../domain/end-user';
import type { Connection } from '../domain/model';
import { parseOrThrow } from '../domain/validation';
import type { ConnectionRepo } from '../store/connection-repo';

export const connectionListQuery = z.object({
  endUserId: endUserIdSchema.optional().describe("Only this end user's connections (made through a connect page for them)"),
});

/** `GET /connections[?endUserId=]`: every connection, or one end user's. */
export async function listConnections(repo: ConnectionRepo, query: URLSearchParams): Promise<Connection[]> {
  const given = query.getAll('endUserId');
  const { endUserId } = parseOrThrow(connectionListQuery, given.length === 0 ? {} : { endUserId: given.length === 1 ? given[0] : given });
  const all = await repo.list();
  return endUserId === undefined ? all : all.filter((c) => c.endUserId === endUserId);
}
