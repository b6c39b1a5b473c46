import { describeGap, eventGap } from '../../../domain/app-permissions';
import { AppError } from '../../../domain/errors';
import type { AppInstallation, Connection, SubscriptionTarget } from '../../../domain/model';
import type { TriggerId } from '../../../domain/triggers';
import { hookEventsFor } from '../../../subscriptions/trigger-rules';
import type { TriggerCatalog } from '../../../domain/trigger-catalog';

/** A `github_app` connection's installation, or a clear error when the connection has none. */
export function installationOf(connection: Connection): AppInstallation {
  if (connection.installation === undefined)
    throw new AppError('internal', `Connection ${connection.id} is a GitHub App connection without an installation`);
  return connection.installation;
}

/**
 * Whether a `github_app` connection can receive `trigger`'s webhook events on `target`:
 * the target must belong to the installation's account (an installation only ever sends
 * its own account's events), and the installation must be granted, and subscribed to, at
 * least one of the events the trigger is made of. None: `forbidden`, naming each missing
 * permission or event. Some: answers a note naming what the subscription will not see.
 */
export function checkAppTrigger(
  catalog: TriggerCatalog,
  connection: Connection,
  trigger: TriggerId,
  target: SubscriptionTarget,
): { note?: string } {
  const installation = installationOf(connection);
  const account = installation.account.login;
  const owner =
    target.kind === 'repository' ? target.repository.split('/')[0] : target.kind === 'organization' ? target.organization : undefined;
  if (owner !== undefined && owner.toLowerCase() !== account.toLowerCase()) {
    const field = target.kind === 'repository' ? 'repository' : 'organization';
    throw new AppError('forbidden', `${field}: the GitHub App installation of connection ${connection.id} is on ${account}, not ${owner}`, {
      fields: [{ field, message: `not in the installation on ${account}` }],
    });
  }
  const events = hookEventsFor(catalog, [trigger]);
  const gaps = events.flatMap((e) => eventGap(installation, e) ?? []);
  if (events.length > 0 && gaps.length === events.length) {
    const missingPermissions = [...new Set(gaps.flatMap((g) => g.missingPermissions))];
    const missingEvents = gaps.filter((g) => g.notSubscribed).map((g) => g.event);
    throw new AppError(
      'forbidden',
      `${trigger}: the GitHub App installation on ${account} cannot receive it: ${gaps.map(describeGap).join('; ')}. Grant it in the App's settings; the owner accepts the new permissions.`,
      { trigger, missingPermissions, missingEvents },
    );
  }
  if (gaps.length === 0) return {};
  return { note: `The GitHub App installation does not receive every event of this trigger: ${gaps.map(describeGap).join('; ')}.` };
}
