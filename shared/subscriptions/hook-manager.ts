import type { Connection, Subscription } from '../domain/model';
import type { AppContext } from '../ports/app-context';
import type { SubscriptionRequest } from './subscription-input';

/** What became of a hook when a subscription left it: what the provider refused is a warning, never thrown. */
export interface ReleaseOutcome {
  hook: 'kept' | 'updated' | 'deleted' | 'none';
  /** What could not be done at the provider, for people. */
  warning?: string;
}

export interface DeletedSubscription extends ReleaseOutcome {
  id: string;
  deleted: true;
}

/**
 * A provider's hook manager: it makes, widens, narrows and deletes the provider's webhooks
 * for the subscriptions of a connection. The core parses and checks the request, keeps one
 * subscription per identity, and hands the rest to the connection's provider.
 */
export interface HookManager {
  /**
   * Whether the connection may take the subscription before anything is made (a connection
   * that must be reconnected first is refused unless the provider needs no user token for
   * it), with the request's names settled (an account renamed, a column named by name):
   * answers the connection as it now is.
   */
  admit(ctx: AppContext, connection: Connection, req: SubscriptionRequest): Promise<Connection>;
  /** Makes or widens the hook the subscription needs, then writes the subscription (a failed write puts the hook back). */
  subscribe(ctx: AppContext, connection: Connection, req: SubscriptionRequest): Promise<Subscription>;
  /** Deletes the subscription, then narrows or deletes its hook. */
  unsubscribe(ctx: AppContext, sub: Subscription): Promise<DeletedSubscription>;
  /** At a disconnect, after its subscriptions: the connection's hooks left without any (an earlier failed cleanup). */
  releaseLeftovers(ctx: AppContext, connection: Connection): Promise<ReleaseOutcome[]>;
  /** The URL a subscription's deliveries arrive at, when it has one of its own to show. */
  webhookUrl(ctx: Pick<AppContext, 'config'>, sub: Subscription): string | undefined;
}

declare module '../ports/provider-contract' {
  interface ProviderContract {
    hooks: HookManager;
  }
}
