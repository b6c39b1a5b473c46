import type { Connection, Subscription } from '../../../domain/model';
import { mapDelivery } from '../mapping/map-delivery';
import { mapPolledGist, mapPolledRepository, mapPolledWatcher } from '../mapping/map-polled';
import type { MappedEvent } from '../../../domain/mapping/types';
import type { ExampleDoc } from './example-docs';
import { fitExample } from './fit-example';

/** The example as the events the poller or intake would map for this subscription (also GET /triggers). */
export function mappedForQueue(doc: ExampleDoc, sub: Subscription, connection: Connection): MappedEvent[] {
  if (doc.event === null || sub.trigger === 'github.new_gist') {
    const item = doc.event === null ? doc.item : {};
    const one =
      sub.trigger === 'github.new_gist'
        ? mapPolledGist(item)
        : sub.trigger === 'github.new_watcher' && sub.repository
          ? mapPolledWatcher(item, sub.repository)
          : undefined;
    return one ? [one] : [];
  }
  if (sub.trigger === 'github.new_repository' && sub.organization === undefined) {
    const repository = (doc.payload.repository ?? {}) as Record<string, unknown>;
    const owner = { ...((repository.owner ?? {}) as Record<string, unknown>), login: connection.accountLogin, type: 'User' };
    const one = mapPolledRepository({ ...repository, owner, full_name: `${connection.accountLogin}/${String(repository.name)}` });
    return one ? [one] : [];
  }
  const fitted = fitExample(doc, sub, connection);
  return mapDelivery({ event: fitted.event, payload: fitted.payload, accountLogin: connection.accountLogin }).filter(
    (m) => m.trigger === sub.trigger,
  );
}
