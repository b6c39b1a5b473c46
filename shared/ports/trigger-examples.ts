import type { Override } from '../domain/example-overrides';
import type { MappedEvent } from '../domain/mapping/types';
import type { Connection, Provider, Subscription } from '../domain/model';
import type { TriggerId } from '../domain/triggers';
import type { Fetch } from './index';
import type { AppContext } from './app-context';

/**
 * A provider's documented examples of its triggers, as `GET /triggers` shows them and
 * `npm run trigger` sends them. Not a part of the contract object, which every function
 * carries: the examples are JSON that only the catalog's listing and the operator's tools
 * read, so the wiring lists them (`shared/wiring/provider-examples.ts`) for those alone.
 */
export interface TriggerExamples {
  /** The connection an example event is shown for. */
  connection: Connection;
  /** The trigger's example as the events the intake or the poller would map for this subscription; none when it has none. */
  mapped(trigger: TriggerId, sub: Subscription, connection: Connection): MappedEvent[];
  /** Sends the example (with the person's changes) to this runtime for one subscription, as the provider would. */
  send(request: ExampleSendRequest): Promise<ExampleSent>;
}

/** Every provider's examples, by its id, loaded on first use. */
export type ExamplesLoader = () => Promise<Readonly<Record<Provider, TriggerExamples>>>;

/** What sending one example takes. */
export interface ExampleSendRequest {
  ctx: Pick<AppContext, 'store' | 'secrets' | 'queue' | 'blobs' | 'clock' | 'logger' | 'metrics' | 'githubAppSecret' | 'providers'>;
  fetch: Fetch;
  /** The intake URL of an endpoint on this runtime (`app`: the GitHub App's webhook; the collection service's hook is under the same base). */
  intakeUrl(endpointId: string): string;
  sub: Subscription;
  /** `--set path=value`: the person's changes to the documented example. */
  overrides: readonly Override[];
}

/** How an example reached this runtime: a signed delivery, a delivery to a URL holding its token, or events queued as the poller would. */
export type ExampleSent =
  | {
      kind: 'webhook';
      subscriptionId: string;
      endpointId: string;
      url: string;
      event: string;
      deliveryId: string;
      bytes: number;
      intake: { status: number; body: unknown };
    }
  | { kind: 'enqueued'; subscriptionId: string; reason: string; eventIds: string[] }
  | {
      /** Posted unsigned: the token in its URL is the delivery's check. */
      kind: 'url-token';
      subscriptionId: string;
      event: string;
      /** The URL posted to, its token masked. */
      url: string;
      /** The record the delivery names, which the intake reads back. */
      subjectId: string;
      sentAt: string;
      intake: { status: number; body: unknown };
    };
