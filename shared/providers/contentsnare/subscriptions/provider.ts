import { contentSnareOAuth } from '../oauth/definition';
import { revokeContentSnare } from '../oauth/revoke';
import type { ProviderContract } from '../../../ports/provider-contract';
import { snareHooks } from './snare-subscription';

/** The collection service behind the provider contract (shared/ports/provider-contract.ts). */
export const contentSnareProvider: ProviderContract = {
  id: 'contentsnare',
  connectionKind: 'collection-service',
  oauth: contentSnareOAuth,
  revoke: revokeContentSnare,
  hooks: snareHooks,
};
