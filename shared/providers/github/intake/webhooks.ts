import type { ProviderIntake } from '../../../intake/provider-intake';
import { loadOnce } from '../../../domain/load-once';
import { codeHostHeaders } from './delivery-headers';

/** The path id of the App's webhook in logs and the console (it has no endpoint id). */
export const appPathId = 'app';

const appSource = loadOnce(() => import('./app-source'));
const hookSource = loadOnce(() => import('./hook-source'));

/**
 * The code host's webhook routes: the hooks the product made (`/webhooks/github/{endpointId}`,
 * each with its own secret) and the GitHub App's one webhook (`/webhooks/github/app`). Both
 * check the same headers; each source (with the payload mappings) is read on its route's first
 * delivery, not at the intake's cold start.
 */
export const githubIntake: ProviderIntake = {
  webhooks: [
    {
      route: 'appDelivery',
      path: () => ({ pathId: appPathId }),
      headers: codeHostHeaders,
      source: async (ctx) => (await appSource()).githubAppSource(ctx),
    },
    {
      route: 'hookDelivery',
      path: (params) => ({ pathId: params.endpointId ?? '' }),
      headers: codeHostHeaders,
      source: async (ctx) => (await hookSource()).githubHookSource(ctx),
    },
  ],
};
