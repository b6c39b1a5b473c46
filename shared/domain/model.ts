import type { TriggerId } from './triggers';

export type Provider = 'github' | 'contentsnare';
export const providers: readonly Provider[] = ['github', 'contentsnare'];

/**
 * `suspended`: a GitHub App installation the owner suspended (its events and tokens pause until
 * it is unsuspended). `revoked`: the installation was deleted; nothing runs on the connection.
 */
export type ConnectionStatus = 'connected' | 'reconnect_required' | 'suspended' | 'revoked';

/** Whether a connection in this status still takes trigger events: a deleted or suspended installation's take none. */
export function takesEvents(status: ConnectionStatus): boolean {
  return status !== 'revoked' && status !== 'suspended';
}

/** A GitHub App installation (`GET /app/installations/{id}`), as a `github_app` connection keeps it. */
export interface AppInstallation {
  /** The installation's numeric id at the code host. */
  id: number;
  /** The user or organization the App is installed on. */
  account: { login: string; id: string; type: 'User' | 'Organization' };
  /** `all`: every repository of the account; `selected`: only `Connection.repositories`. */
  repositorySelection: 'all' | 'selected';
  /** What the installation may do, e.g. `{ issues: 'write', metadata: 'read' }`. */
  permissions: Record<string, string>;
  /** The webhook events the installation receives. */
  events: string[];
}

/** Who a `github_app` connection acts as (`Connection.reach`). */
export type AppReach = 'installation' | 'user';

/** A connected account. The token itself lives in the SecretStore, never here. */
export interface Connection {
  id: string;
  provider: Provider;
  label?: string;
  /** The account's login at the provider (code host), or its name/e-mail (collection service). */
  accountLogin: string;
  /** The account's stable id where the provider has one (the code host's numeric user id). */
  accountId?: string;
  /**
   * `unknown`: the provider did not say whose token this is when it was (re)connected (the
   * collection service's `GET /me` failed); the connection works all the same, and
   * `accountLogin` is then the previous name or `unknown`. `identityReason` says why.
   */
  identity?: 'unknown';
  identityReason?: string;
  /** `github_app`: acts through a GitHub App installation (`installation`), with the user's own token beside it. */
  authMethod: 'token' | 'oauth' | 'github_app';
  /** Set on `github_app` connections only. */
  installation?: AppInstallation;
  /**
   * `github_app` connections only: whose reach the connection acts with. `installation`: the
   * user administers the installation's account (their own, or an organization they are an
   * owner of), so the connection acts with the installation's token over all of it.
   * `user`: anyone else; the connection acts with the user's own token (GitHub grants it the
   * intersection of the user's and the App's access) and its allow-list is the installation's
   * repositories this user can access. Absent (connections made before it existed): `user`.
   */
  reach?: AppReach;
  status: ConnectionStatus;
  /** Why the status is what it is, for people (e.g. "refresh token was revoked"). */
  statusReason?: string;
  /** Enterprise servers: the connection's own REST base; absent = the configured default. */
  apiBaseUrl?: string;
  /**
   * Allow-list of `owner/name` repositories for tools and triggers; empty = all, except on a
   * `github_app` connection, where empty means all only with `reach: 'installation'` on an
   * installation of all repositories (otherwise none). On a `github_app` connection, the
   * installation's repositories its user can access (`GET /user/installations/{id}/repositories`).
   */
  repositories: string[];
  /**
   * The code host's ids of allow-list entries, by lower-cased `owner/name` (only names in
   * `repositories` count): an entry with an id follows its repository through a rename or a
   * transfer. Filled in from the deliveries and rename events that name the repository.
   */
  repositoryIds?: Record<string, number>;
  scopes?: string[];
  /** Access-token expiry (epoch ms) for providers whose tokens expire. */
  tokenExpiresAt?: number;
  /**
   * Made by the sandbox (`npm run dev`) as a demo connection, with a token of its own: the
   * only connections whose token the sandbox re-binds to its simulated services. No API sets it.
   */
  sandboxDemo?: true;
  /** The platform's end user the connection was made for, through a connect page (`POST /connect/sessions`). */
  endUserId?: string;
  createdAt: string;
  updatedAt: string;
}

/** The secret kept per connection under `secretNames.connectionToken(connection)`. */
export interface StoredToken {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt?: number;
  tokenType?: string;
  scope?: string;
  /**
   * The origin (`https://api.github.com`) the token was issued for: the provider's API for
   * OAuth tokens, the base a user-made token was verified at. Code-host requests refuse to
   * carry it anywhere else (shared/providers/github/code-host-access.ts). Absent on tokens stored
   * before origins were recorded: see `boundOrigin` in shared/providers/github/github-base.ts.
   */
  origin?: string;
  /** Epoch ms after which the refresh token is dead too (GitHub's `refresh_token_expires_in`). */
  refreshTokenExpiresAt?: number;
}

export type SubscriptionTarget =
  | { kind: 'repository'; repository: string }
  | { kind: 'organization'; organization: string }
  | { kind: 'account' };

export interface SubscriptionFilters {
  /** Branch names (new_commit, new_push, new_branch). */
  branches?: string[];
  /** Label names (new_label_on_issue, new_issue, updated_issue). */
  labels?: string[];
  /** Classic project column id or name (new_card_in_column). */
  column?: string;
  /** Projects v2 node id or number (project_item_status_changed). */
  project?: string;
  /** Collection service: the request template's name (request and field triggers). */
  template?: string;
  /** Collection service: the request folder's name. */
  folder?: string;
  /** Collection service: a client's id (`acc_...`) or e-mail address. */
  client?: string;
}

export interface Subscription {
  id: string;
  connectionId: string;
  trigger: TriggerId;
  agentId: string;
  /** `owner/name` as last seen: shown, and matched while `repositoryId` is unknown. */
  repository?: string;
  /**
   * The repository's id at the code host: an event matches by it when both carry one, so a
   * rename or a transfer keeps the subscription. Absent on subscriptions from before ids were
   * kept, until a delivery naming the repository fills it in.
   */
  repositoryId?: number;
  organization?: string;
  /** The organization's id at the code host, as `repositoryId` is the repository's. */
  organizationId?: number;
  filters: SubscriptionFilters;
  /** How events arrive: a webhook endpoint, or the poller. */
  delivery: 'webhook' | 'polling';
  endpointId?: string;
  /**
   * A webhook subscription of a `github_app` connection: its events come through the App's
   * one webhook, routed by this installation (no endpoint, no hook of its own).
   */
  installationId?: number;
  /** Said to the user, e.g. why polling was chosen over a webhook. */
  note?: string;
  createdAt: string;
}

export type EndpointTarget = { kind: 'repository'; repository: string } | { kind: 'organization'; organization: string };

/** A webhook at the code host shared by every subscription of one connection on one target. */
export interface Endpoint {
  id: string;
  connectionId: string;
  target: EndpointTarget;
  /** The hook's id at the code host, once created. */
  hookId?: number;
  events: string[];
  verifiedAt?: string;
  createdAt: string;
}

/** The body POSTed to AGENT_RUNTIME_URL (docs/api.md, "The trigger event"). */
export interface TriggerEvent {
  id: string;
  trigger: TriggerId;
  subscriptionId: string;
  agentId: string;
  connectionId: string;
  deliveryId: string;
  occurredAt: string;
  event: Record<string, unknown>;
  /** The event this one replays (`POST /events/{id}/replay`): absent on every other event. */
  replayOf?: string;
}

/** What names a connection's token secret: its id and its provider (each provider's tokens have their own area). */
export type TokenOwner = Pick<Connection, 'id' | 'provider'>;

/** Each provider's area of the secret store for its connections' tokens (the code host's is the original one). */
const tokenAreas: Readonly<Record<Provider, string>> = { github: 'connections', contentsnare: 'contentsnare-connections' };

/** Names of secrets in the SecretStore. */
export const secretNames = {
  /**
   * One secret area per provider, so a function is granted only the tokens it uses: the webhook intake reads
   * (and refreshes) the collection service's tokens for its read-back, never the code host's. The code host's
   * keep the original area (`connections/`); the collection service's moved out of it
   * (shared/store/legacy-token-names.ts moves one left under its old name on first use).
   */
  connectionToken: (connection: TokenOwner) => `${tokenAreas[connection.provider]}/${connection.id}/token`,
  /** Where the collection service's tokens were kept before they had an area of their own. */
  legacyConnectionToken: (connectionId: string) => `connections/${connectionId}/token`,
  endpointSecret: (endpointId: string) => `endpoints/${endpointId}/secret`,
  oauthClientSecret: (provider: Provider) => `oauth/${provider}/client-secret`,
} as const;
