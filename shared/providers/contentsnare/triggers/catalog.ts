import type { TriggerDefinition } from '../../../domain/trigger-catalog';
import type { SnareTriggerId, SnareTriggerName } from '../../../domain/triggers';
import { snareTriggerRows } from './rows';

/**
 * The collection service's part of the catalog (its `triggers` part of the provider contract).
 * Its triggers are the account's: one webhook per connection carries them all.
 */
export const snareTriggers: Readonly<Record<SnareTriggerId, TriggerDefinition>> = Object.fromEntries(
  (Object.entries(snareTriggerRows) as Array<[SnareTriggerName, (typeof snareTriggerRows)[SnareTriggerName]]>).map(([name, row]) => {
    const id: SnareTriggerId = `contentsnare.${name}`;
    const definition: TriggerDefinition = {
      id,
      provider: 'contentsnare',
      title: row.title,
      description: row.description,
      includes: row.includes,
      events: [name],
      filters: row.filters,
      source: (target) => (target.kind === 'account' ? { kind: 'webhook', scope: 'account', events: [name] } : undefined),
      // A code-host grant; the collection service's webhooks need its `administration` scope, checked when subscribing.
      permissions: () => undefined,
      recoverable: row.recoverable,
    };
    return [id, definition];
  }),
) as Record<SnareTriggerId, TriggerDefinition>;
