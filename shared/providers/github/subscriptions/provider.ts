import { revokeGithub } from '../oauth/revoke';
import { githubIntake } from '../intake/webhooks';
import type { ProviderContract } from '../../../ports/provider-contract';
import { githubHooks } from './github-hooks';

/** The code host behind the provider contract (shared/ports/provider-contract.ts). */
export const githubProvider: ProviderContract = {
  id: 'github',
  connectionKind: 'code-host',
  revoke: revokeGithub,
  intake: githubIntake,
  hooks: githubHooks,
};
