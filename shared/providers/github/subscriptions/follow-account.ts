import * as z from 'zod';
import type { Connection, SubscriptionTarget } from '../../../domain/model';
import type { SeenAccount } from '../renames';
import { codeHostAccess } from '../code-host-access';
import { isOk, restCall } from '../webhooks/rest-call';
import { followRename } from '../intake/follow-renames';
import type { AppContext } from '../../../ports/app-context';
import { ConnectionRepo } from '../../../store/connection-repo';

const accountSchema = z.object({ id: z.number().int().positive(), login: z.string().min(1).max(100) });

/**
 * A subscription named under an account's new login, when the product missed the rename:
 * the account's id decides. A `github_app` connection whose target owner is not the
 * installation's account login reads that owner (`GET /users/{owner}`); a token or OAuth
 * connection whose target owner is not its login reads its own user (`GET /user`). When the
 * id is the one kept, the rename is followed (the connection, its subscriptions and hooks
 * take the new login) before the subscription is looked for or made, so that it is the same
 * subscription and the App's account check passes. A read that fails changes nothing.
 */
export async function followAccountRename(ctx: AppContext, connection: Connection, target: SubscriptionTarget): Promise<Connection> {
  const owner =
    target.kind === 'repository' ? target.repository.split('/')[0] : target.kind === 'organization' ? target.organization : undefined;
  if (owner === undefined || connection.provider !== 'github') return connection;
  const installation = connection.installation?.account;
  const kept =
    installation ?? (connection.accountId !== undefined ? { id: connection.accountId, login: connection.accountLogin } : undefined);
  if (kept === undefined || owner.toLowerCase() === kept.login.toLowerCase()) return connection;
  let seen: SeenAccount | undefined;
  try {
    const access = await codeHostAccess(ctx, connection);
    const path = installation ? `/users/${encodeURIComponent(owner)}` : '/user';
    const result = await restCall(ctx.fetch, { ...access, method: 'GET', path });
    const account = isOk(result) ? accountSchema.safeParse(result.body) : undefined;
    if (account?.success && String(account.data.id) === kept.id && account.data.login !== kept.login)
      seen = {
        id: account.data.id,
        login: account.data.login,
        formerLogin: kept.login,
        organization: installation?.type === 'Organization',
      };
  } catch (e) {
    ctx.logger.warn('could not read the account to compare its id; names compared as they are', { error: e });
  }
  if (seen === undefined) return connection;
  await followRename(ctx, [connection], { accounts: [seen] });
  ctx.logger.info('account rename followed at subscription', { connectionId: connection.id });
  return (await new ConnectionRepo(ctx.store).get(connection.id)) ?? connection;
}
