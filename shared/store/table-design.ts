import { eventListingFields } from './event-listing-fields';

/**
 * One table for everything (single-table design). Keys are strings `pk`/`sk`; three global
 * secondary indexes: `gsi1` (routing: which subscriptions an event reaches; one connection's
 * events) and `gsi2` (listings), which project every attribute, and `gsi3` (every event,
 * sharded), which projects only what its listing filters on; a TTL attribute `ttl` (epoch
 * seconds). Every read path is a GetItem or a Query, never a Scan; the access patterns are
 * listed in docs/architecture.md, "Table design".
 * Both the CDK stack and the local runtime create the table from this description.
 */
export const tableDesign = {
  partitionKey: 'pk',
  sortKey: 'sk',
  ttlAttribute: 'ttl',
  gsi1: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'all' },
  gsi2: { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'all' },
  gsi3: { name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: eventListingFields },
} as const;

/** The table's global secondary indexes, in the order they were added (CloudFormation adds one per update). */
export const tableIndexes = [tableDesign.gsi1, tableDesign.gsi2, tableDesign.gsi3] as const;
export type IndexName = (typeof tableIndexes)[number]['name'];

/**
 * Shards of the all-events listing (gsi3 `EVTS#<n>`): each index partition takes about 1,000
 * writes a second, and an event writes its shard once, when it is queued.
 */
export const eventShardCount = 16;

/**
 * Shards of each listing of configuration (connections, subscriptions, hooks, scoped keys) and
 * of the poller's partitions: a tenant's rows sit in one shard, so its own listing is one Query
 * there, and the listing of all of them reads every shard in parallel.
 */
export const listingShardCount = 16;

/** FNV-1a of `id` over `count` shards: the same id always lands in the same shard, and ids spread evenly. */
export function stableShard(id: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % count;
}

/**
 * A listing spread over the index partitions `<partition>#<n>`, `n` the stable shard of the
 * row's tenant (shared/store/sharded-listing.ts). `partition` alone is where the listing's rows
 * were kept before it was sharded: never written any more, still read, and a row written again
 * moves to its shard.
 */
export interface ShardedListing {
  index: 'gsi1' | 'gsi2';
  partition: string;
}

/** Key builders, so every module spells keys the same way. */
export const keys = {
  connection: (id: string) => ({ pk: `CONN#${id}`, sk: 'CONN' }),
  subscription: (id: string) => ({ pk: `SUB#${id}`, sk: 'SUB' }),
  /** gsi1 partition of a subscription fed by a webhook endpoint: the intake's one Query. */
  webhookRoute: (endpointId: string, trigger: string) => `ROUTE#${endpointId}#${trigger}`,
  /** gsi1 partition of the subscriptions a GitHub App installation's deliveries reach, per trigger (the app intake's one Query per trigger). */
  appRoute: (installationId: number, trigger: string) => `AROUTE#${installationId}#${trigger}`,
  /** gsi1 partition of the `github_app` connections of one installation (sort: connection id). */
  installationConnections: (installationId: number) => `INST#${installationId}`,
  /** The route id of a GitHub App installation's deliveries (in place of an endpoint id in the delivery claim keys). */
  appRouteId: (installationId: number) => `app_${installationId}`,
  /** The gsi1 partition of the subscriptions the poller serves, per trigger, before it was sharded (`listings.polled`). */
  pollRoute: (trigger: string) => `POLL#${trigger}`,
  /** Endpoint ids are derived from (connection, target), so one conditional put makes them unique. */
  endpoint: (id: string) => ({ pk: `EP#${id}`, sk: 'EP' }),
  /** A delivery id's mark, `done` once its events are queued (what the sweep reads by GUID); no `state`: done (older rows); `in_progress`: written by the claim of an older version, which claimed the delivery id too. */
  deliveryClaim: (endpointId: string, deliveryId: string) => ({ pk: `DLV#${endpointId}#${deliveryId}`, sk: 'DLV' }),
  /** The delivery's claim, on its signed body (sha256 hex of its bytes): `in_progress` (a lease) while an attempt runs, `done` once its events are queued. The delivery id is not signed, so a replay under a new id still meets this. */
  deliveryBodyClaim: (endpointId: string, bodySha256: string) => ({ pk: `DLVB#${endpointId}#${bodySha256}`, sk: 'DLVB' }),
  dispatchClaim: (eventId: string) => ({ pk: `EVT#${eventId}`, sk: 'EVT' }),
  oauthState: (stateHash: string) => ({ pk: `STATE#${stateHash}`, sk: 'STATE' }),
  /** A connect page's session, by the hash of its token (the token itself is never stored). */
  connectSession: (tokenHash: string) => ({ pk: `CONNECT#${tokenHash}`, sk: 'CONNECT' }),
  /** One end user's connections: a row per connection (sk `CONN#<id>`), read by a key made for the end user. */
  endUserConnection: (endUserId: string, connectionId: string) => ({ pk: `EUSR#${endUserId}`, sk: `CONN#${connectionId}` }),
  endUserConnections: (endUserId: string) => `EUSR#${endUserId}`,
  lease: (name: string) => ({ pk: `LEASE#${name}`, sk: 'LEASE' }),
  /** What the dispatch containers found of one agent's pace (by the hash of its circuit key: shared/dispatch/shared-pace.ts), and its probe's lease. */
  agentPace: (keyHash: string) => ({ pk: `PACE#${keyHash}`, sk: 'PACE' }),
  agentProbe: (keyHash: string) => ({ pk: `PACE#${keyHash}`, sk: 'PROBE' }),
  /** A GitHub App installation's current access token, sealed under the platform's key (installation-token-row.ts). */
  appToken: (installationId: number) => ({ pk: `APPTOKEN#${installationId}`, sk: 'APPTOKEN' }),
  rateBucket: (name: string) => ({ pk: `RATE#${name}`, sk: 'RATE' }),
  pollCursor: (subscriptionId: string) => ({ pk: `CURSOR#${subscriptionId}`, sk: 'CURSOR' }),
  // A polled source's shared cursor: one partition per connection, one row per list path.
  sourceCursor: (connectionId: string, path: string) => ({ pk: `PSRC#${connectionId}`, sk: `PSRC#${path}` }),
  sourceCursors: (connectionId: string) => ({ pk: `PSRC#${connectionId}`, skPrefix: 'PSRC#' }),
  sweepCursor: (endpointId: string) => ({ pk: `SWEEP#${endpointId}`, sk: 'SWEEP' }),
  // Where the next polling round's plan starts (its rotating start).
  pollPlan: () => ({ pk: 'PLAN#poll', sk: 'PLAN' }),
  // Where the next sweep round's plan of hooks starts (its rotating start).
  sweepPlan: () => ({ pk: 'PLAN#sweep', sk: 'PLAN' }),
  /** A scoped API key by its public id (the secret is only hashed in it). */
  apiKey: (id: string) => ({ pk: `KEY#${id}`, sk: 'KEY' }),
  /** A trigger event's history: its summary (sk `EVH`, small, rewritten as it moves) and its body (sk `BODY`, written once). */
  eventHistory: (eventId: string) => ({ pk: `EVH#${eventId}`, sk: 'EVH' }),
  eventBody: (eventId: string) => ({ pk: `EVH#${eventId}`, sk: 'BODY' }),
  /** When an event (an original, never a replay) was replayed lately: the per-event bound of replays. */
  replaysOfEvent: (eventId: string) => ({ pk: `EVH#${eventId}`, sk: 'REPLAYS' }),
  /** When a key asked for replays lately (`platform` for the platform key; scoped key ids are 20 characters): the per-key bound. */
  replaysOfKey: (keyId: string) => ({ pk: `KEY#${keyId}`, sk: 'REPLAYS' }),
  /**
   * gsi2 partition that listed every event's summary before the listing was sharded: no longer
   * written, still read until its rows expire (30 days after their last write).
   */
  legacyEventsList: 'EVTS',
  /** gsi3 partition of one shard of every event's summary (sort: queuedAt#id); the shard is the event id's. */
  eventsShard: (shard: number) => `EVTS#${shard}`,
  /** gsi1 partition listing one connection's events (sort: queuedAt#id), for a filter on it or a key that opens one connection. */
  eventsOfConnection: (connectionId: string) => `EVTC#${connectionId}`,
  // Collection service webhooks (shared/providers/contentsnare/snare-hook.ts): one per connection, listed for the recovery check.
  snareHook: (connectionId: string) => ({ pk: `CSHOOK#${connectionId}`, sk: 'CSHOOK' }),
  /** What was last seen of one collection-service record (request, field, client): its triggers' states and episodes. */
  snareSubject: (connectionId: string, subject: string) => ({ pk: `CSSUBJ#${connectionId}#${subject}`, sk: 'CSSUBJ' }),
  /** The recovery check's place in a connection's changed requests. */
  snareRecoveryCursor: (connectionId: string) => ({ pk: `CSREC#${connectionId}`, sk: 'CSREC' }),
} as const;

/** The sharded listings (`ShardedListing`), each with what its shards are chosen by and sorted on. */
export const listings = {
  /** Connections, sharded by their id (sort: createdAt#id). */
  connections: { index: 'gsi2', partition: 'CONNS' },
  /** Subscriptions, sharded by their connection (sort: connectionId#createdAt#id, so one connection's are a prefix of its shard). */
  subscriptions: { index: 'gsi2', partition: 'SUBS' },
  /** Endpoints, sharded by their connection (sort: connectionId#id): the redelivery sweep and disconnects. */
  endpoints: { index: 'gsi2', partition: 'EPS' },
  /** Scoped keys, sharded by their id (sort: createdAt#id). */
  apiKeys: { index: 'gsi2', partition: 'KEYS' },
  /** The collection-service hooks, sharded by their connection (sort: connectionId). */
  snareHooks: { index: 'gsi2', partition: 'CSHOOKS' },
  /** The subscriptions the poller serves for one trigger, sharded by their connection (sort: id). */
  polled: (trigger: string): ShardedListing => ({ index: 'gsi1', partition: keys.pollRoute(trigger) }),
} as const satisfies Record<string, ShardedListing | ((trigger: string) => ShardedListing)>;

/** Epoch seconds `seconds` from `nowMs`, for the `ttl` attribute. */
export function ttlIn(nowMs: number, seconds: number): number {
  return Math.floor(nowMs / 1000) + seconds;
}
