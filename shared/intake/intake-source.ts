import type { Connection, Subscription } from '../domain/model';
import type { MapInput, MappedEvent } from '../domain/mapping/types';
import type { TriggerId } from '../domain/triggers';
import type { Logger } from '../observability/logger';

/**
 * What a source of deliveries plugs into the intake pipeline (pipeline.ts): how its
 * deliveries are verified and whose they are (`Verifier`), and which subscriptions they
 * reach (`Router`). The pipeline does the rest the same way for every source: required
 * headers, verification on the raw bytes, JSON, mapping, the claim, the route, fan-out, done.
 */

/** One delivery as the transport read it. */
export interface IntakeRequest {
  /** The id in the delivery's URL path (the webhook endpoint, or the source's own token). */
  pathId: string;
  /** A secret the URL carries besides the id (the collection service's per-connection token); never logged. */
  pathToken?: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The raw body bytes, exactly as signed. */
  body: Buffer;
}

/** The HTTP answer to a delivery. */
export interface DeliveryAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A delivery refused before it was processed: counted `webhook_refused` by `reason`. */
export interface Refusal {
  reason: string;
  answer: DeliveryAnswer;
}

export type Verdict<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

/** What the pipeline needs from the headers, whatever the source. */
export interface DeliveryHeaders {
  /** The event name the mapping is keyed by. */
  event: string;
  /** The delivery's id (redeliveries keep it). */
  deliveryId: string;
  /** What authenticates the body, when the source signs it. */
  signature?: string;
}

/**
 * Whose delivery this is: the connections its events may reach, and the route id its claims are
 * kept under. A repository hook belongs to one connection; a GitHub App installation's
 * delivery reaches every live connection of that installation, and is claimed once for all.
 */
export interface Tenant {
  /** At least one; each is mapped with its own account (mentions) and fanned out to its own subscriptions. */
  connections: readonly Connection[];
  /**
   * The webhook route the delivery came through: its claims are keyed under it (the endpoint id
   * of a repository hook, `app_<installationId>` for an App installation, `snare_<connectionId>`
   * for a collection-service connection).
   */
  routeId: string;
}

/** Authenticates a delivery. `V` is what it learned (e.g. the endpoint the URL names). */
export interface Verifier<V> {
  /** The required headers, checked as one list before the body is trusted. */
  headers(raw: Record<string, string | undefined>): Verdict<DeliveryHeaders>;
  /** Checks the raw bytes (or the URL's token) and says whose they may be. */
  verify(req: IntakeRequest, headers: DeliveryHeaders): Promise<Verdict<V>>;
  /**
   * Events answered by the source itself before mapping (the code host's `ping`, a GitHub
   * App's installation events), or undefined to go on. `payload` is the parsed body;
   * `delivery` what an event that changes state needs to claim the delivery once
   * (delivery-claims.ts), as the pipeline claims every other one.
   */
  answerEvent?(
    verified: V,
    headers: DeliveryHeaders,
    log: Logger,
    payload: unknown,
    delivery: OwnEventDelivery,
  ): Promise<DeliveryAnswer | undefined>;
}

/** The raw delivery, for a source's own event that claims it before acting. */
export interface OwnEventDelivery {
  /** The raw signed bytes. */
  body: Buffer;
  /** Aborts when the transport has answered. */
  signal: AbortSignal;
  /** How long to wait for another attempt of the same delivery in progress. */
  busyWaitMs: number;
}

/** The subscriptions each trigger reaches. */
export type Routes = ReadonlyMap<TriggerId, readonly Subscription[]>;

/** Says whose a verified delivery is, and which subscriptions its trigger events reach. */
export interface Router<V> {
  tenant(verified: V, payload: unknown): Promise<Verdict<Tenant>>;
  /** The subscriptions that may receive each trigger (fan-out still matches filters and the allow-list). */
  subscriptions(verified: V, tenant: Tenant, triggers: readonly TriggerId[]): Promise<Routes>;
  /**
   * The step between the route and fan-out, when the source has one (the code host: renames
   * a delivery shows the stored rows missed). Pure: the rows fan-out matches against, and
   * what to save once the events are queued (a save that fails must not fail the delivery).
   */
  amend?(input: { event: string; payload: unknown; connections: readonly Connection[]; routes: Routes }): RoutedRows;
}

/** The tenant's connections and the routed subscriptions as fan-out should read them. */
export interface RoutedRows {
  connections: readonly Connection[];
  routes: Routes;
  /** Keeps what the delivery showed; called once the events are queued. */
  save(log: Logger): Promise<void>;
}

/** The trigger occurrences of one delivery for one connection of the tenant (mapped with its account). */
export interface ConnectionMapped {
  connection: Connection;
  mapped: MappedEvent[];
}

/**
 * What the claim is taken on, when the source decides it: a source whose deliveries carry no
 * id and no signature (the collection service) names the change they announce instead.
 */
export interface ClaimIdentity {
  deliveryId: string;
  event: string;
  /** The bytes the claim is keyed on (their SHA-256), in place of the delivery's body. */
  body: Buffer;
}

export type SourceMapOutcome =
  | { kind: 'mapped'; mapped: ConnectionMapped[]; identity?: ClaimIdentity }
  | { kind: 'answered'; answer: DeliveryAnswer };

/**
 * A provider's pure mapping of a delivery's body: the shared map stage (map-stage.ts) refuses a
 * body that does not fit its event (`misfitKeys`), then maps it once per connected account.
 */
export interface PayloadMapping {
  /** The top-level keys that make the body not fit its event (empty: it fits). */
  misfitKeys(event: string, body: Record<string, unknown>): string[];
  /** The trigger occurrences of the body; never throws for outside input. */
  map(input: MapInput): MappedEvent[];
}

/** A source's own mapping, when a pure one from the body alone does not fit: it may read, and must stop when `signal` aborts. */
export interface Mapper<V> {
  map(
    input: { verified: V; tenant: Tenant; headers: DeliveryHeaders; payload: unknown; log: Logger },
    signal: AbortSignal,
  ): Promise<SourceMapOutcome>;
}

/**
 * One source of deliveries, built per context (its verifier and router close over it), with
 * its mapping: a pure `mapping` run by the shared map stage, or a `mapper` of its own.
 */
export type IntakeSource<V> = { verifier: Verifier<V>; router: Router<V> } & ({ mapping: PayloadMapping } | { mapper: Mapper<V> });

/** A delivery whose body did not fit its event: answered 2xx (the code host must not retry it), and told. */
export interface RefusedDelivery {
  pathId: string;
  deliveryId: string;
  event: string;
  reason: 'shape';
  /** The keys that made it not fit. */
  keys: string[];
}

/** Who else hears of what the pipeline decided (the local console's recent events). */
export interface IntakeObserver {
  refused?(delivery: RefusedDelivery): void;
}

export function refusal(reason: string, status: number, code: string, message: string): Refusal {
  return { reason, answer: { status, body: { error: { code, message } } } };
}
