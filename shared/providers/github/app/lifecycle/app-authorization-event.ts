import * as z from 'zod';
import type { Logger } from '../../../../observability/logger';
import type { AppContext } from '../../../../ports/app-context';
import { ConnectionRepo } from '../../../../store/connection-repo';
import type { LifecycleAnswer } from './lifecycle-answer';
import { badPayload } from './installation-event';
import { fieldsOf } from './installation-payload';
import { updateConnections } from './update-connections';

const body = z.object({ action: z.string().max(100), sender: z.object({ id: z.number().int().positive() }) });

/**
 * `github_app_authorization` `revoked`: the user took back the App's authorization, so the
 * user's own token is dead. Their `github_app` connections become `reconnect_required`
 * for what needs that token (gists, their own stars); the installation still carries
 * their webhook triggers. The event names the user, not an installation: the connections
 * are found by the user's id among all of them (a rare event).
 */
export async function onAppAuthorizationEvent(ctx: AppContext, log: Logger, payload: unknown): Promise<LifecycleAnswer> {
  const parsed = body.safeParse(payload);
  if (!parsed.success) return badPayload('github_app_authorization', fieldsOf(parsed.error));
  const { action, sender } = parsed.data;
  let changed = 0;
  if (action === 'revoked') {
    const userId = String(sender.id);
    const mine = (await new ConnectionRepo(ctx.store).list()).filter((c) => c.authMethod === 'github_app' && c.accountId === userId);
    changed = await updateConnections(ctx, mine, (c) =>
      c.status !== 'connected'
        ? undefined
        : {
            ...c,
            status: 'reconnect_required',
            statusReason: "The user revoked the GitHub App's authorization: connect again to use the user's own token",
          },
    );
  }
  ctx.metrics.count('app_installation_event', 1, { action: `authorization_${action}` });
  log.info('GitHub App authorization event applied', { action, changed });
  return { status: 200, body: { ok: true, action, changed } };
}
