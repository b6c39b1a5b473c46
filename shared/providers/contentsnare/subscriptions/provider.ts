import { snareTriggers } from '../triggers/catalog';
import { contentSnareOAuth } from '../oauth/definition';
import { identifyContentSnare } from '../oauth/identify';
import { contentSnareRefresh } from '../oauth/refresh-rules';
import { revokeContentSnare } from '../oauth/revoke';
import type { ProviderContract } from '../../../ports/provider-contract';
import { snareHooks } from './snare-subscription';

/** The collection service behind the provider contract (shared/ports/provider-contract.ts). */
export const contentSnareProvider: ProviderContract = {
  id: 'contentsnare',
  connectionKind: 'collection-service',
  oauth: contentSnareOAuth,
  identify: identifyContentSnare,
  refresh: contentSnareRefresh,
  revoke: revokeContentSnare,
  triggers: snareTriggers,
  hooks: snareHooks,
  // Its webhooks are unsigned and never retried: what they missed is found once a round.
  // Read on first use, as the code host's polling is.
  polling: { recover: async (ctx) => (await import('../polling/poll-contentsnare')).recoverMissedSnareDeliveries(ctx) },
};
