import type { WebhookIntake } from '../intake/provider-intake';
import { snareIntake } from '../providers/contentsnare/intake/webhooks';
import { githubIntake } from '../providers/github/intake/webhooks';

/**
 * Every provider's webhook routes, as the intake takes them: the one list, for the Lambda
 * intake and the local runtime alike. Only they are given it, so no other function bundles
 * the providers' sources and payload mappings.
 */
export const providerWebhooks: readonly WebhookIntake[] = [...githubIntake.webhooks, ...snareIntake.webhooks];
