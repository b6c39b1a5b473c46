/**
 * Which items each function role may touch in the table: partition-key patterns (IAM
 * `StringLike` syntax) for the table itself and, for a role that queries an index, for that
 * index's partition key, which is what `dynamodb:LeadingKeys` checks on an index Query.
 * The one declaration both the CDK stack (a `dynamodb:LeadingKeys` condition on every table
 * statement of the role; index access only to the indexes listed) and the recording test
 * (test/integration/table-access-by-role.test.ts) read: a flow that touches a family not
 * listed here fails that test, rather than failing in production with AccessDenied.
 * A role absent here keeps unconditioned item access (its flows are not recorded).
 * Families: shared/store/table-design.ts (`keys`). Every pattern is bounded: the index
 * partitions are fixed prefixes (ROUTE#, AROUTE#, INST#, POLL#, EVTS#, the listings' shards CONNS#, SUBS#, EPS#, KEYS#,
 * CSHOOKS#) or the fixed values the listings had before they were sharded (CONNS, SUBS, EPS, KEYS, CSHOOKS), still read.
 */
export interface TableAccess {
  /** Patterns of the table's `pk`, for GetItem, Query, PutItem, UpdateItem, DeleteItem. */
  table: readonly string[];
  /** Patterns of `gsi1pk` for a Query on gsi1 (routing); absent: no access to the index. */
  gsi1?: readonly string[];
  /** Patterns of `gsi2pk` for a Query on gsi2 (listings); absent: no access to the index. */
  gsi2?: readonly string[];
  /** Patterns of `gsi3pk` for a Query on gsi3 (the shards of all events); absent: no access to the index. */
  gsi3?: readonly string[];
}

/**
 * Token users: the connection (read; a refresh or a dead grant updates it), the refresh's single-flight lease, and
 * the mint lease and sealed row of a GitHub App installation's token (shared/providers/github/app/installation-tokens.ts):
 * every token user may meet an App connection, whose first call mints under that lease and keeps the token in that row.
 */
export const appTokenLease = 'LEASE#app-token#*';
export const appTokenRow = 'APPTOKEN#*';
const tokenUse = ['CONN#*', 'LEASE#refresh#*', appTokenLease, appTokenRow] as const;

// The collection service's triggers (shared/providers/contentsnare/snare-hook.ts, read-back.ts, subject-memory.ts):
// the intake checks the URL's token against the connection's hook and queues the delivery; the recovery check lists the hooks and does
// the same, with its cursor and the intake's claims; subscribing registers the hook under its lease.
const snareIntake = ['CSHOOK#*'] as const;
// The read-back of an accepted delivery, worked by the dispatch consumer (shared/providers/contentsnare/read-back-job.ts):
// the hook, the records read back within the rate buckets, what was seen of them, the change's claim, the route.
const snareReadBack = ['CSHOOK#*', 'CSSUBJ#*', 'RATE#*', 'DLVB#*'] as const;
const snareRecovery = ['CSSUBJ#*', 'CSREC#*', 'RATE#*', 'DLVB#*'] as const;
const snareHooks = ['CSHOOK#*', 'RATE#*', 'LEASE#snarehook#*'] as const;

/** A sharded listing's partitions (shared/store/sharded-listing.ts): its shards, and the partition from before them. */
function listed(...partitions: string[]): string[] {
  return partitions.flatMap((p) => [p, `${p}#*`]);
}

export const tableAccessByRole: Readonly<Record<string, TableAccess>> = {
  // Dispatch claims (shared/dispatch/dispatch-claim.ts); the connection and its token for the
  // follow-up reads of the code host (shared/providers/github/follow-ups/).
  // Each event's history (EVH#, shared/dispatch/event-progress.ts). A replay's gates read again
  // before it is posted: its connection and its subscription (SUB#, shared/dispatch/delivery-gate.ts).
  // The collection service's read-back jobs (snareReadBack) and their route query (gsi1 ROUTE#snare_*).
  // The GitHub App's lifecycle jobs (app-lifecycle-job.ts): an installation's connections (gsi1 INST#),
  // read back and updated; a user's among all of them (gsi2 CONNS).
  // What the containers found of each agent's pace, and its probe (PACE#, shared/dispatch/shared-pace.ts).
  dispatch: {
    table: [...tokenUse, 'EVT#*', 'EVH#*', 'SUB#*', 'PACE#*', ...snareReadBack],
    gsi1: ['ROUTE#snare_*', 'INST#*'],
    gsi2: listed('CONNS'),
  },
  // The endpoint and its connection (endpoint-cache.ts), the delivery's claim and mark
  // (delivery-claims.ts), and the route query of the matching subscriptions (shared/dispatch/fan-out.ts).
  // The GitHub App's webhook (shared/providers/github/intake/app-source.ts): an installation's connections (gsi1 INST#) and
  // route partitions (gsi1 AROUTE#); its lifecycle events are claimed here and applied in dispatch.
  // The queued events' history rows ride in the batch of the done marks (EVH#).
  // Renames (follow-renames.ts): a delivery's ids bring the routed subscriptions' names and ids
  // up to date (SUB#); a rename event renames a connection's subscriptions and hooks (gsi2 SUBS, EPS).
  'webhook-intake': {
    table: ['EP#*', 'CONN#*', 'SUB#*', 'DLV#*', 'DLVB#*', 'EVH#*', ...snareIntake],
    gsi1: ['ROUTE#*', 'AROUTE#*', 'INST#*'],
    gsi2: listed('SUBS', 'EPS'),
  },
  // Polled subscriptions by trigger (gsi1 POLL#), their connections, their baselines (CURSOR#)
  // and the shared cursor of each polled source (PSRC#, one partition per connection).
  // The history of the events it queues (EVH#).
  poller: {
    table: [...tokenUse, 'CURSOR#*', 'PSRC#*', 'EVH#*', 'PLAN#poll', ...snareRecovery],
    gsi1: ['POLL#*', 'ROUTE#snare_*'],
    gsi2: listed('CSHOOKS'),
  },
  // Every endpoint (gsi2 EPS; a worker reads its item's by id), its connection, the delivery claims it checks,
  // its sweep cursor; the planner's rotating start (PLAN#sweep) and the lease a worker holds on the hook it walks.
  'redelivery-sweep': { table: [...tokenUse, 'EP#*', 'DLV#*', 'SWEEP#*', 'PLAN#sweep', 'LEASE#sweep#*'], gsi2: listed('EPS') },
  // The connection of each call, and the collection service's shared rate buckets; a scoped
  // key's row; over MCP, the connections a key may see and their subscriptions (listings); the hooks
  // the product registered (gsi2 EPS, CSHOOKS), read when an API call addresses hooks.
  'tool-step': { table: [...tokenUse, 'RATE#*', 'KEY#*', 'EUSR#*'], gsi2: listed('CONNS', 'SUBS', 'EPS', 'CSHOOKS') },
  // The OAuth state rows and the connection the callback saves (or reconnects); the GitHub App's callback reads
  // the installation back with the App's tokens (their mint lease and row).
  // A connect page's session (CONNECT#) and the end user's row beside each connection made through it (EUSR#).
  oauth: { table: ['STATE#*', 'CONN#*', 'CONNECT#*', 'EUSR#*', appTokenLease, appTokenRow] },
  // Connections, subscriptions, endpoints, scoped keys and the listings; the poll baseline (a subscription's
  // cursor, deleted with it) and the source cursor it is taken against; the per-endpoint lease of hook changes; the
  // per-identity lease that keeps a subscription from being made twice; token refresh.
  // Event history (shared/events/): the events' rows (EVH#), a delivery claim read for an event in flight (EVT#), and
  // the two listings (gsi1 EVTC# by connection, gsi3 EVTS#<shard> of all events, and gsi2 EVTS, where all events were
  // listed before the listing was sharded, read until its rows expire). The replay bounds' ledgers live beside what they count:
  // per event in its history partition (EVH#<id>/REPLAYS), per key in the key's (KEY#<id>/REPLAYS, KEY#platform).
  // A disconnect takes the connection off every scoped key (KEY#, listed on gsi2 KEYS).
  'platform-api': {
    table: [
      ...tokenUse,
      'SUB#*',
      'EP#*',
      'CURSOR#*',
      'PSRC#*',
      'LEASE#endpoint#*',
      'LEASE#subscribe#*',
      'KEY#*',
      // An end user's key reads their connections; a disconnect removes the end user's row.
      'EUSR#*',
      'EVH#*',
      'EVT#*',
      ...snareHooks,
    ],
    gsi1: ['EVTC#*'],
    gsi2: [...listed('CONNS', 'SUBS', 'EPS', 'KEYS'), 'EVTS'],
    gsi3: ['EVTS#*'],
  },
};

/** True when `value` matches an IAM StringLike pattern (`*` any run, `?` one character). */
export function matchesLeadingKey(pattern: string, value: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 's').test(value);
}
