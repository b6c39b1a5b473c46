import type { ProviderIntake } from '../../../intake/provider-intake';
import { loadOnce } from '../../../domain/load-once';
import { snareHeaders } from './delivery-headers';

const snareSource = loadOnce(() => import('./snare-source'));

/**
 * The collection service's webhook route: `/webhooks/contentsnare/{connectionId}/{token}`, one
 * hook per connection. Its source is read on the route's first delivery, not at the intake's
 * cold start.
 */
export const snareIntake: ProviderIntake = {
  webhooks: [
    {
      route: 'snareDelivery',
      path: (params) => ({ pathId: params.connectionId ?? '', pathToken: params.token ?? '' }),
      headers: snareHeaders,
      source: async (ctx) => (await snareSource()).contentSnareSource(ctx),
    },
  ],
};
