import type { AppContext } from '../../shared/ports/app-context';
import type { Fetch } from '../../shared/ports';
import { triggerCatalogOf } from '../../shared/ports/provider-contract';
import type { ExampleSent } from '../../shared/ports/trigger-examples';
import { AppError } from '../../shared/domain/errors';
import type { Override } from '../../shared/domain/example-overrides';
import type { Subscription } from '../../shared/domain/model';
import type { TriggerId } from '../../shared/domain/triggers';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';

export interface SendExampleDeps {
  ctx: Pick<AppContext, 'store' | 'secrets' | 'queue' | 'blobs' | 'clock' | 'logger' | 'metrics' | 'githubAppSecret' | 'providers'>;
  fetch: Fetch;
  /** The intake URL of an endpoint on this runtime (`app`: the GitHub App's webhook; the collection service's hook is under the same base). */
  intakeUrl(endpointId: string): string;
}

/** What was sent, as `npm run trigger` reports it. */
export type SendExampleResult = ExampleSent;

/** The given subscription, or the newest one to this trigger; `not_found` saying which. */
export async function findSubscription(ctx: Pick<AppContext, 'store'>, trigger: TriggerId, subscriptionId?: string): Promise<Subscription> {
  const repo = new SubscriptionRepo(ctx.store);
  if (subscriptionId) {
    const sub = await repo.get(subscriptionId);
    if (!sub) throw new AppError('not_found', `No subscription ${subscriptionId}`);
    if (sub.trigger !== trigger) throw new AppError('invalid_input', `Subscription ${subscriptionId} is to ${sub.trigger}, not ${trigger}`);
    return sub;
  }
  const all = (await repo.list()).filter((s) => s.trigger === trigger);
  const newest = all.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
  if (!newest) throw new AppError('not_found', `No subscription to ${trigger} yet`, { trigger });
  return newest;
}

/**
 * `npm run trigger`: one example event to one subscription, sent by the trigger's provider as
 * it would send it: a delivery to this runtime's own intake (the full path a real delivery
 * takes), or, for a polled subscription, its events enqueued as the poller would.
 */
export async function sendExampleTrigger(
  deps: SendExampleDeps,
  trigger: TriggerId,
  subscriptionId?: string,
  overrides: readonly Override[] = [],
): Promise<SendExampleResult> {
  const sub = await findSubscription(deps.ctx, trigger, subscriptionId);
  const examples = await loadProviderExamples();
  const provider = triggerCatalogOf(deps.ctx.providers)[trigger].provider;
  return examples[provider].send({ ...deps, sub, overrides });
}
