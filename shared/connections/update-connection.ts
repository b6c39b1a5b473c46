import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import { AppError } from '../domain/errors';
import type { Connection } from '../domain/model';
import { parseOrThrow } from '../domain/validation';
import { repositoryName } from '../subscriptions/subscription-input';
import { ConnectionRepo } from '../store/connection-repo';
import { isLimitedToList, isRepositoryAllowed } from '../domain/allow-list';

export const connectionUpdateBody = z
  .object({
    label: z.string().trim().max(200).nullable().optional(),
    repositories: z.array(repositoryName).max(1000).optional(),
    apiBaseUrl: z.never({ error: 'cannot be changed: it decides where the token is sent; connect again with the new base' }).optional(),
  })
  .strict();

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
      assertNoWidening(c, next.repositories);
    }
    return next;
  });
  if (!updated) throw new AppError('connection_not_found', `No connection ${id}`);
  return updated;
}

/**
 * A GitHub App connection's allow-list is what GitHub lists for its user (or the
 * installation's, for its administrator): it may be narrowed, never widened past it.
 */
function assertNoWidening(current: Connection, wanted: readonly string[]): void {
  if (current.authMethod !== 'github_app') return;
  const outside = wanted.filter((r) => !isRepositoryAllowed(current, r));
  const toAll = wanted.length === 0 && isLimitedToList(current) && current.reach === 'installation';
  if (outside.length === 0 && !toAll) return;
  throw new AppError(
    'forbidden',
    `repositories: a GitHub App connection's allow-list can only be narrowed; ${outside.join(', ') || 'every repository'} is outside what its user may reach (reconnect to read it from GitHub again)`,
    { fields: [{ field: 'repositories', message: "outside the connection's reach" }] },
  );
}
