import * as z from 'zod';
import type { Connection } from '../../../../domain/model';
import type { Logger } from '../../../../observability/logger';
import type { AppContext } from '../../../../ports/app-context';
import { installationState, type InstallationState } from '../installation-state';
import { ConnectionRepo } from '../../../../store/connection-repo';
import type { LifecycleAnswer } from './lifecycle-answer';
import { fieldsOf, installationPayload } from './installation-payload';
import { updateConnections } from './update-connections';

const body = z.object({ action: z.string().max(100), installation: installationPayload });

/**
 * The `installation` event keeps each connection of the installation true to it: `deleted`
 * makes them `revoked` (nothing routes or is dispatched for them again; the installation
 * id is never reused), `suspend` makes them `suspended` (events pause) and `unsuspend`
 * `connected` again; `new_permissions_accepted` keeps the permissions and events the owner
 * accepted. Other actions (`created`: the install flow makes the connection) change nothing.
 *
 * A signed body says what happened once, not what holds now (an old one may be replayed
 * under a new id, or arrive after a later change): before `deleted`, `suspend` or
 * `unsuspend` changes a connection, the installation is read back from GitHub with the App's
 * JWT (404: deleted; `suspended_at` set: suspended), and a body GitHub does not confirm
 * changes nothing (`unconfirmed: true`).
 */
export async function onInstallationEvent(ctx: AppContext, log: Logger, payload: unknown): Promise<LifecycleAnswer> {
  const parsed = body.safeParse(payload);
  if (!parsed.success) return badPayload('installation', fieldsOf(parsed.error));
  const { action, installation } = parsed.data;
  const connections = await new ConnectionRepo(ctx.store).byInstallation(installation.id);
  const statusAction = action === 'deleted' || action === 'suspend' || action === 'unsuspend';
  if (statusAction && connections.length > 0 && !confirms(action, await installationState(ctx, installation.id))) {
    ctx.metrics.count('app_installation_event', 1, { action: `${action}_unconfirmed` });
    log.warn('GitHub App installation event not confirmed by GitHub: nothing changed', { installationId: installation.id, action });
    return { status: 200, body: { ok: true, installation: installation.id, action, changed: 0, unconfirmed: true } };
  }
  const change = changeFor(action, installation);
  const changed = change ? await updateConnections(ctx, connections, change) : 0;
  ctx.metrics.count('app_installation_event', 1, { action });
  log.info('GitHub App installation event applied', { installationId: installation.id, action, connections: connections.length, changed });
  return { status: 200, body: { ok: true, installation: installation.id, action, changed } };
}

type Installation = z.infer<typeof installationPayload>;

/** Whether GitHub's state now is what the status action says happened. */
function confirms(action: 'deleted' | 'suspend' | 'unsuspend', now: InstallationState): boolean {
  if (action === 'deleted') return now.kind === 'deleted';
  return now.kind === 'present' && now.suspended === (action === 'suspend');
}

function changeFor(action: string, installation: Installation): ((c: Connection) => Connection | undefined) | undefined {
  switch (action) {
    case 'deleted':
      return (c) =>
        c.status === 'revoked' ? undefined : { ...c, status: 'revoked', statusReason: 'The GitHub App was uninstalled from the account' };
    case 'suspend':
      return (c) =>
        c.status === 'revoked' || c.status === 'suspended'
          ? undefined
          : { ...c, status: 'suspended', statusReason: 'The GitHub App installation is suspended' };
    case 'unsuspend':
      return (c) => {
        if (c.status !== 'suspended') return undefined;
        const { statusReason: _r, ...rest } = c;
        return { ...rest, status: 'connected' };
      };
    case 'new_permissions_accepted':
      return (c) =>
        c.installation === undefined
          ? undefined
          : {
              ...c,
              installation: {
                ...c.installation,
                permissions: installation.permissions ?? c.installation.permissions,
                events: installation.events ?? c.installation.events,
              },
            };
    default:
      return undefined;
  }
}

/** A signed App delivery whose body does not fit: 400 naming the fields (a signed body from the code host never should). */
export function badPayload(event: string, fields: string): LifecycleAnswer {
  return {
    status: 400,
    body: { error: { code: 'invalid_input', message: `${event} delivery: ${fields} missing or not as the code host sends them` } },
  };
}
