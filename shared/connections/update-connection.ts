import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import type { Connection } from '../domain/model';
import { parseOrThrow } from '../domain/validation';
import { repositoryName } from '../subscriptions/subscription-input';
import { ConnectionRepo } from '../store/connection-repo';

export const connectionUpdateBody = z
  .object({
    label: z.string().trim().max(200).nullable().optional(),
    repositories: z.array(repositoryName).max(1000).optional(),
    apiBaseUrl: z.never({ error: 'cannot be changed: it decides where the token is sent; connect again with the new base' }).optional(),
  })
  .strict();

declare module '../ports/provider-contract' {
  interface ProviderContract {
    /**
     * Refuses an allow-list a connection may not take (a thrown AppError naming the field
     * `repositories`); without it, any list is taken (shared/connections/update-connection.ts).
     */
    checkAllowList?: (current: Connection, wanted: readonly string[]) => void;
  }
}

/** `PATCH /connections/{id}`: label and the repository allow-list (empty: all). */
export async function updateConnection(ctx: AppContext, id: string, body: unknown): Promise<Connection> {
  const input = parseOrThrow(connectionUpdateBody, body);
  const updated = await new ConnectionRepo(ctx.store).update(id, (c) => {
    const next: Connection = { ...c, updatedAt: new Date(ctx.clock.now()).toISOString() };
    if (input.label !== undefined) next.label = input.label === null || input.label === '' ? undefined : input.label;
    if (input.repositories !== undefined) {
      const seen = new Map<string, string>();
      for (const r of input.repositories) if (!seen.has(r.toLowerCase())) seen.set(r.toLowerCase(), r);
      next.repositories = [...seen.values()];
      ctx.providers[c.provider].checkAllowList?.(c, next.repositories);
    }
    return next;
  });
  if (!updated) throw new AppError('connection_not_found', `No connection ${id}`);
  return updated;
}
