import { revokeContentSnare } from '../oauth/revoke';
import { snareIntake } from '../intake/snare-source';
import type { ProviderContract } from '../../../ports/provider-contract';
import { snareHooks } from './snare-subscription';

/** The collection service behind the provider contract (shared/ports/provider-contract.ts). */
export const contentSnareProvider: ProviderContract = {
  id: 'contentsnare',
  connectionKind: 'collection-service',
  revoke: revokeContentSnare,
  intake: snareIntake,
  hooks: snareHooks,
};
