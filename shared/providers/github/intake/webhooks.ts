import type { ProviderIntake } from '../../../intake/provider-intake';
import { appPathId, githubAppSource } from './app-source';
import { githubHookSource } from './hook-source';

/**
 * The code host's webhook routes: the hooks the product made (`/webhooks/github/{endpointId}`,
 * each with its own secret) and the GitHub App's one webhook (`/webhooks/github/app`).
 */
export const githubIntake: ProviderIntake = {
  webhooks: [
    { route: 'appDelivery', path: () => ({ pathId: appPathId }), source: githubAppSource },
    { route: 'hookDelivery', path: (params) => ({ pathId: params.endpointId ?? '' }), source: githubHookSource },
  ],
};
