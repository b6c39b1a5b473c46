import { createHash, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { installationRepositoriesPage, permissionRefusal } from './simulated-app-installation';
import { SimulatedAppManifests } from './simulated-app-manifest';
import type { RecordedRequest, SimulatedResponse } from '../simulated-http';

/**
 * GitHub playing a GitHub App, as GitHub's documentation describes it ("Generating a JSON Web
 * Token for a GitHub App", "Generating an installation access token", "Generating a user
 * access token for a GitHub App", the REST reference of `apps/*`):
 *
 * - the App's JWT is checked with its public key: RS256, `iss` the app id or client id, `iat`
 *   not in the future and `exp` at most 10 minutes ahead, on this clock (`now`); a refusal for
 *   the times is a 401 in GitHub's words (those `@octokit/auth-app` retries on) with a `Date`;
 * - `POST /app/installations/{id}/access_tokens` (JWT) issues a `ghs_` token that expires in an
 *   hour (201, `token`, `expires_at`, `permissions`, `repository_selection`);
 * - `GET /app/installations/{id}` (JWT) describes the installation;
 * - the installation page (`/apps/{slug}/installations/new?state=`) and the user authorization
 *   (`/login/oauth/authorize`) send the browser to the callback URL with a `code` (and, after an
 *   installation, `installation_id` and `setup_action=install`) and the `state`;
 * - `POST /login/oauth/access_token` exchanges the code (and a refresh token) for an expiring
 *   `ghu_` user token with a `ghr_` refresh token, no scope (an App has permissions, not scopes);
 * - the App's webhook delivery log ("REST API endpoints for GitHub App webhooks"), JWT only:
 *   `GET /app/hook/deliveries` (newest first, `per_page` up to 100, `cursor` paging with a
 *   `Link: <...>; rel="next"` header; each item with `installation_id`) and
 *   `POST /app/hook/deliveries/{delivery_id}/attempts` (202; the delivery is sent again later,
 *   as a new attempt of the same `guid` with `redelivery: true`);
 * - `GET /user`, `GET /user/installations`, `GET /user/installations/{id}/repositories` (the
 *   installation's repositories the user can access) and `GET /user/memberships/orgs/{org}`
 *   (`org-membership`: `state`, `role`; 404 for someone who is no member) with the user's
 *   token; an installation token is refused on `/user...` and `/gists...` (403 "Resource not
 *   accessible by integration"), as GitHub refuses it there;
 * - a user's token reaches a repository only where the App is installed and the user has
 *   access ("the intersection of the user's and the App's"), else 404 as for a private
 *   repository one cannot see; an installation token reaches every repository of its installation.
 *
 * `handle` answers the App's routes and checks the token of every other request; it returns
 * undefined for a request it leaves to the rest of the simulated code host.
 */

export interface SimulatedInstallation {
  id: number;
  account: { login: string; id: number; type: 'User' | 'Organization' };
  repositorySelection: 'all' | 'selected';
  /** The selected repositories (`owner/name`); for `all`, the repositories the simulation knows of. */
  repositories: string[];
  permissions: Record<string, string>;
  events: string[];
  suspended: boolean;
  /** Logins of the users who can access the installation (`GET /user/installations`). */
  members: Set<string>;
}

export interface SimulatedAppUser {
  login: string;
  id: number;
}

export interface SimulatedAppOptions {
  appId?: number;
  slug?: string;
  /** The App's "Callback URL": where the installation page and the user authorization return. */
  callbackUrl?: string;
  /** The real time by default: GitHub checks a JWT against its own clock. */
  now?: () => number;
  /**
   * A browser opening the installation page or the user authorization is answered at once as
   * this user installing on (or authorizing for) this installation: the sandbox's "GitHub UI".
   */
  autoApproveAs?: { login: string; installationId: number };
}

/** The App's user tokens (`ghu_` -> login) and refresh tokens (`ghr_` -> login and its access token). */
export interface SimulatedUserTokens {
  users: Array<[string, string]>;
  refresh: Array<[string, { login: string; access: string }]>;
}

/** One attempt in the App's webhook delivery log, as `GET /app/hook/deliveries` lists it. */
export interface SimulatedHookDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
}

/** Sends a delivery (by its first attempt) to the App's webhook again; answers the status code it got (0: no answer). */
export type SimulatedRedeliver = (first: SimulatedHookDelivery) => Promise<number>;

interface IssuedCode {
  login: string;
  challenge?: string;
  used: boolean;
}

const rand = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export class SimulatedGitHubApp {
  readonly appId: number;
  readonly slug: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly privateKeyPem: string;
  private readonly publicKeyPem: string;
  callbackUrl: string;
  /** The App webhook's secret, handed over by the manifest flow's conversion. */
  webhookSecret = rand('app-webhook-secret-');
  /** GitHub's App manifest flow, making this App (simulated-app-manifest.ts). */
  readonly manifests: SimulatedAppManifests;
  readonly installations = new Map<number, SimulatedInstallation>();
  readonly users = new Map<string, SimulatedAppUser>();
  /**
   * The repositories (`owner/name`) each user can access at GitHub, by login. A user not
   * listed can access every repository (an account's own, or an organization's member with
   * access to all): tests list only the users whose access is narrower.
   */
  readonly userAccess = new Map<string, Set<string>>();
  /** Organization memberships: organization login (lower case) -> user login -> role. */
  readonly orgRoles = new Map<string, Map<string, 'admin' | 'member' | 'billing_manager'>>();
  /** Installation tokens issued: token -> installation and expiry (epoch ms). */
  readonly installationTokens = new Map<string, { installationId: number; expiresAt: number }>();
  /** User tokens valid now: token -> login. */
  readonly userTokens = new Map<string, string>();
  private readonly refreshTokens = new Map<string, { login: string; access: string }>();
  private readonly codes = new Map<string, IssuedCode>();
  /** Mints per installation id. */
  readonly mints = new Map<number, number>();
  /** JWTs refused, with why: a test's proof that the check runs. */
  readonly refusedJwts: string[] = [];
  /** Every token, code and secret issued or seen: the leak scan's list. */
  readonly issued = new Set<string>();
  private readonly now: () => number;
  /**
   * The clock installation tokens are issued and expire on (`now` by default); a test moves it
   * to let an hour pass, while JWTs, made with the real time, are still checked against `now`.
   */
  tokenNow: () => number;
  private nextUserId = 5000;
  /** The App webhook's delivery log, oldest first. */
  readonly hookDeliveries: SimulatedHookDelivery[] = [];
  /** `POST /app/hook/deliveries/{id}/attempts` requests, by delivery id. */
  readonly redeliveryRequests: number[] = [];
  /** How a requested redelivery is sent; unset: it is only logged as an attempt that got no answer. */
  redeliver: SimulatedRedeliver | undefined;
  private readonly redelivering = new Set<Promise<void>>();
  private nextDeliveryId = 70_000_000;
  private readonly autoApproveAs: SimulatedAppOptions['autoApproveAs'];

  constructor(options: SimulatedAppOptions = {}) {
    this.appId = options.appId ?? 424242;
    this.slug = options.slug ?? 'agent-integrations-sandbox';
    this.clientId = `Iv23li${randomBytes(7).toString('hex')}`;
    this.clientSecret = rand('app-client-secret-');
    this.callbackUrl = options.callbackUrl ?? 'http://127.0.0.1:3000/oauth/github-app/callback';
    this.now = options.now ?? Date.now;
    this.tokenNow = this.now;
    this.autoApproveAs = options.autoApproveAs;
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKeyPem = pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    this.publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    this.issued.add(this.clientSecret);
    this.issued.add(this.privateKeyPem.split('\n')[1] ?? this.privateKeyPem);
    this.manifests = new SimulatedAppManifests(this, () => this.autoApproveAs?.login ?? 'octocat', this.now);
  }

  addUser(login: string): SimulatedAppUser {
    const user = this.users.get(login) ?? { login, id: this.nextUserId++ };
    this.users.set(login, user);
    return user;
  }

  addInstallation(i: Partial<SimulatedInstallation> & Pick<SimulatedInstallation, 'id' | 'account'>): SimulatedInstallation {
    const installation: SimulatedInstallation = {
      repositorySelection: 'all',
      repositories: [],
      permissions: { metadata: 'read', issues: 'write', contents: 'write', pull_requests: 'write' },
      events: ['issues', 'issue_comment', 'pull_request', 'push'],
      suspended: false,
      members: new Set(),
      ...i,
    };
    this.installations.set(installation.id, installation);
    return installation;
  }

  /** Makes `login` a member of the organization `org` with `role` (an owner is `admin`). */
  setOrgRole(org: string, login: string, role: 'admin' | 'member' | 'billing_manager'): void {
    const roles = this.orgRoles.get(org.toLowerCase()) ?? new Map();
    roles.set(login, role);
    this.orgRoles.set(org.toLowerCase(), roles);
  }

  /** Whether the user can access the repository at GitHub (not yet through the App). */
  userCanAccess(login: string, fullName: string): boolean {
    const access = this.userAccess.get(login);
    return access === undefined || [...access].some((r) => r.toLowerCase() === fullName.toLowerCase());
  }

  /** Issues a user token directly (a test that starts from a connected user). */
  issueUserToken(login: string): { accessToken: string; refreshToken: string } {
    const access = rand('ghu_');
    const refresh = rand('ghr_');
    this.userTokens.set(access, login);
    this.refreshTokens.set(refresh, { login, access });
    this.issued.add(access);
    this.issued.add(refresh);
    this.onUserTokens?.();
    return { accessToken: access, refreshToken: refresh };
  }

  /** Called when user tokens were issued (the sandbox keeps them across a restart). */
  onUserTokens: (() => void) | undefined;

  /** The user and refresh tokens valid now, as the sandbox's state file keeps them. */
  userTokenState(): SimulatedUserTokens {
    return { users: [...this.userTokens], refresh: [...this.refreshTokens] };
  }

  /** Takes back the user tokens of an earlier run. */
  restoreUserTokens(state: SimulatedUserTokens): void {
    for (const [token, login] of state.users) this.userTokens.set(token, login);
    for (const [token, held] of state.refresh) this.refreshTokens.set(token, held);
  }

  /**
   * The browser at the installation page (or the user authorization page) as `login`: where
   * GitHub sends it next. `installationId` is the account the user installs on.
   */
  browse(url: string, as: { login: string; installationId?: number }): URL {
    const u = new URL(url);
    const state = u.searchParams.get('state');
    const install = u.pathname === `/apps/${this.slug}/installations/new`;
    const redirect = new URL(install ? this.callbackUrl : (u.searchParams.get('redirect_uri') ?? this.callbackUrl));
    if (!install && u.searchParams.get('client_id') !== this.clientId) throw new Error('authorize: wrong client_id');
    const code = rand('code-');
    this.issued.add(code);
    const challenge = u.searchParams.get('code_challenge') ?? undefined;
    this.codes.set(code, { login: as.login, used: false, ...(challenge ? { challenge } : {}) });
    redirect.searchParams.set('code', code);
    if (install) {
      if (as.installationId === undefined) throw new Error('installing needs the installation the user makes');
      this.installations.get(as.installationId)?.members.add(as.login);
      redirect.searchParams.set('installation_id', String(as.installationId));
      redirect.searchParams.set('setup_action', 'install');
    }
    if (state) redirect.searchParams.set('state', state);
    return redirect;
  }

  /** Logs one attempt of a delivery to the App's webhook (what GitHub shows under "Recent Deliveries"). */
  recordHookDelivery(d: {
    guid: string;
    event: string;
    action?: string;
    installationId: number | null;
    statusCode: number;
    redelivery?: boolean;
    at?: number;
  }): SimulatedHookDelivery {
    const item: SimulatedHookDelivery = {
      id: this.nextDeliveryId++,
      guid: d.guid,
      delivered_at: new Date(d.at ?? this.tokenNow()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      redelivery: d.redelivery ?? false,
      duration: 0.1,
      status: d.statusCode === 0 ? 'Invalid HTTP Response: 0' : d.statusCode < 400 ? 'OK' : `Invalid HTTP Response: ${d.statusCode}`,
      status_code: d.statusCode,
      event: d.event,
      action: d.action ?? null,
      installation_id: d.installationId,
      repository_id: null,
    };
    this.hookDeliveries.push(item);
    return item;
  }

  /** Resolves once every redelivery asked for so far has been sent and logged. */
  async redeliveriesSent(): Promise<void> {
    while (this.redelivering.size > 0) await Promise.all([...this.redelivering]);
  }

  private hookDeliveryRoutes(req: RecordedRequest): SimulatedResponse | undefined {
    const list = req.method === 'GET' && req.path === '/app/hook/deliveries';
    const attempt = /^\/app\/hook\/deliveries\/(\d+)\/attempts$/.exec(req.path);
    if (!list && !(req.method === 'POST' && attempt)) return undefined;
    const refusal = this.checkJwt(req);
    if (refusal) return this.jwtRefused(refusal);
    if (attempt) {
      const id = Number(attempt[1]);
      const d = this.hookDeliveries.find((x) => x.id === id);
      if (!d) return { status: 404, body: { message: 'Not Found' } };
      this.redeliveryRequests.push(id);
      const first = this.hookDeliveries.find((x) => x.guid === d.guid) ?? d;
      const send = this.redeliver;
      const sent = (async () => {
        const statusCode = send ? await send(first).catch(() => 0) : 0;
        this.recordHookDelivery({
          guid: first.guid,
          event: first.event,
          ...(first.action !== null ? { action: first.action } : {}),
          installationId: first.installation_id,
          statusCode,
          redelivery: true,
        });
      })();
      this.redelivering.add(sent);
      void sent.finally(() => this.redelivering.delete(sent));
      return { status: 202, body: {} };
    }
    const perPage = Math.min(Math.max(Number(req.query.get('per_page') ?? 30) || 30, 1), 100);
    const newestFirst = [...this.hookDeliveries].reverse();
    const cursor = req.query.get('cursor');
    let start = 0;
    if (cursor !== null) {
      const m = /^v1_(\d+)$/.exec(cursor);
      if (!m) return { status: 422, body: { message: 'Invalid cursor' } };
      start = newestFirst.findIndex((x) => x.id < Number(m[1]));
      if (start < 0) return { body: [] };
    }
    const page = newestFirst.slice(start, start + perPage);
    const last = page.at(-1);
    const more = last !== undefined && start + perPage < newestFirst.length;
    const host = String(req.headers.host ?? 'api.github.com');
    return {
      body: page,
      ...(more ? { headers: { link: `<http://${host}/app/hook/deliveries?per_page=${perPage}&cursor=v1_${last.id}>; rel="next"` } } : {}),
    };
  }

  handle(req: RecordedRequest): SimulatedResponse | undefined {
    const { method, path } = req;
    const appRoute = this.hookDeliveryRoutes(req) ?? this.manifests.handle(req);
    if (appRoute) return appRoute;
    if (method === 'POST' && path === '/login/oauth/access_token') return this.exchange(req);
    const approve = this.autoApproveAs;
    const consent =
      method === 'GET' &&
      (path === `/apps/${this.slug}/installations/new` ||
        (path === '/login/oauth/authorize' && req.query.get('client_id') === this.clientId));
    if (approve && consent) {
      return { status: 302, headers: { location: this.browse(`http://simulated.invalid${req.url}`, approve).toString() } };
    }
    const appInstallation = /^\/app\/installations\/(\d+)(\/access_tokens)?$/.exec(path);
    if (appInstallation) {
      const refusal = this.checkJwt(req);
      if (refusal) return this.jwtRefused(refusal);
      const installation = this.installations.get(Number(appInstallation[1]));
      if (!installation) return { status: 404, body: { message: 'Not Found' } };
      if (appInstallation[2] && method === 'POST') return this.mint(installation);
      if (!appInstallation[2] && method === 'GET') return { body: this.describe(installation) };
      return { status: 404, body: { message: 'Not Found' } };
    }
    const token = (req.headers.authorization ?? '').replace(/^(Bearer|token) /i, '');
    const installationToken = this.installationTokens.get(token);
    if (installationToken) {
      if (installationToken.expiresAt <= this.tokenNow()) return { status: 401, body: { message: 'Bad credentials' } };
      if (/^\/(user|gists)(\/|$)/.test(path)) return { status: 403, body: { message: 'Resource not accessible by integration' } };
      const installation = this.installations.get(installationToken.installationId);
      if (method === 'GET' && path === '/installation/repositories' && installation) {
        return installationRepositoriesPage(req, installation.repositorySelection, this.repositoriesOf(installation));
      }
      const repo = /^\/repos\/([^/]+)\/([^/]+)/.exec(path);
      if (repo && !this.reaches(installationToken.installationId, `${repo[1]}/${repo[2]}`)) {
        return { status: 404, body: { message: 'Not Found' } };
      }
      return installation ? permissionRefusal(installation.permissions, method, path) : undefined;
    }
    const login = this.userTokens.get(token);
    if (login === undefined)
      return token.startsWith('ghu_') || token.startsWith('ghs_') ? { status: 401, body: { message: 'Bad credentials' } } : undefined;
    const user = this.addUser(login);
    // A GitHub App's user token carries no OAuth scopes: no `X-OAuth-Scopes` on its answers.
    if (method === 'GET' && path === '/user') return { body: { login: user.login, id: user.id, type: 'User' } };
    if (method === 'GET' && path === '/user/installations') {
      const mine = [...this.installations.values()].filter((i) => i.members.has(login));
      return { body: { total_count: mine.length, installations: mine.map((i) => this.describe(i)) } };
    }
    const repos = /^\/user\/installations\/(\d+)\/repositories$/.exec(path);
    if (method === 'GET' && repos) {
      const installation = this.installations.get(Number(repos[1]));
      if (!installation?.members.has(login)) return { status: 404, body: { message: 'Not Found' } };
      const list = installation.repositories
        .map((full_name, n) => ({ id: 9000 + n, full_name, name: full_name.split('/')[1] }))
        .filter((r) => this.userCanAccess(login, r.full_name));
      return { body: { total_count: list.length, repository_selection: installation.repositorySelection, repositories: list } };
    }
    const membership = /^\/user\/memberships\/orgs\/([^/]+)$/.exec(path);
    if (method === 'GET' && membership) return this.membership(decodeURIComponent(membership[1] ?? ''), user);
    const userRepo = /^\/repos\/([^/]+)\/([^/]+)/.exec(path);
    if (userRepo) {
      const fullName = `${userRepo[1]}/${userRepo[2]}`;
      const viaApp = [...this.installations.values()].some((i) => !i.suspended && this.reaches(i.id, fullName));
      if (!viaApp || !this.userCanAccess(login, fullName)) return { status: 404, body: { message: 'Not Found' } };
    }
    return undefined;
  }

  /**
   * The repositories `GET /installation/repositories` lists, as repository objects: by default
   * built from `repositories` (`owner/name`); the sandbox answers its world's repositories.
   */
  repositoriesOf: (installation: SimulatedInstallation) => Record<string, unknown>[] = (i) =>
    i.repositories.map((full_name, n) => {
      const [owner = '', name = ''] = full_name.split('/');
      return { id: 9000 + n, name, full_name, private: false, owner: { login: owner, id: i.account.id, type: i.account.type } };
    });

  /** `GET /user/memberships/orgs/{org}` as the `org-membership` schema describes it. */
  private membership(org: string, user: SimulatedAppUser): SimulatedResponse {
    const role = this.orgRoles.get(org.toLowerCase())?.get(user.login);
    if (role === undefined) return { status: 404, body: { message: 'Not Found' } };
    const orgId = [...this.installations.values()].find((i) => i.account.login.toLowerCase() === org.toLowerCase())?.account.id ?? 1;
    const api = 'https://api.github.com';
    return {
      body: {
        url: `${api}/orgs/${org}/memberships/${user.login}`,
        state: 'active',
        role,
        organization_url: `${api}/orgs/${org}`,
        organization: {
          login: org,
          id: orgId,
          node_id: `O_${orgId}`,
          url: `${api}/orgs/${org}`,
          repos_url: `${api}/orgs/${org}/repos`,
          events_url: `${api}/orgs/${org}/events`,
          hooks_url: `${api}/orgs/${org}/hooks`,
          issues_url: `${api}/orgs/${org}/issues`,
          members_url: `${api}/orgs/${org}/members{/member}`,
          public_members_url: `${api}/orgs/${org}/public_members{/member}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${orgId}`,
          description: null,
        },
        user: { login: user.login, id: user.id, type: 'User', site_admin: false },
      },
    };
  }

  private reaches(installationId: number, fullName: string): boolean {
    const i = this.installations.get(installationId);
    if (!i) return false;
    if (i.repositorySelection === 'selected') return i.repositories.includes(fullName);
    return fullName.split('/')[0]?.toLowerCase() === i.account.login.toLowerCase();
  }

  private describe(i: SimulatedInstallation): Record<string, unknown> {
    return {
      id: i.id,
      account: { login: i.account.login, id: i.account.id, type: i.account.type },
      repository_selection: i.repositorySelection,
      access_tokens_url: `/app/installations/${i.id}/access_tokens`,
      app_id: this.appId,
      app_slug: this.slug,
      target_id: i.account.id,
      target_type: i.account.type,
      permissions: i.permissions,
      events: i.events,
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      suspended_at: i.suspended ? '2026-01-02T00:00:00Z' : null,
    };
  }

  private mint(i: SimulatedInstallation): SimulatedResponse {
    if (i.suspended) return { status: 403, body: { message: 'This installation has been suspended' } };
    const token = rand('ghs_');
    const expiresAt = this.tokenNow() + 60 * 60 * 1000;
    this.installationTokens.set(token, { installationId: i.id, expiresAt });
    this.issued.add(token);
    this.mints.set(i.id, (this.mints.get(i.id) ?? 0) + 1);
    return {
      status: 201,
      body: {
        token,
        expires_at: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        permissions: i.permissions,
        repository_selection: i.repositorySelection,
      },
    };
  }

  /** GitHub's 401 for a refused JWT, dated on its own clock (a client corrects its skew from it). */
  private jwtRefused(message: string): SimulatedResponse {
    return { status: 401, headers: { date: new Date(this.now()).toUTCString() }, body: { message } };
  }

  /** Why the request's JWT is refused, or undefined when it is the App's and current. */
  private checkJwt(req: RecordedRequest): string | undefined {
    const refuse = (why: string, message = `A JSON web token could not be decoded (${why})`) => {
      this.refusedJwts.push(why);
      return message;
    };
    const jwt = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const [h, p, s] = jwt.split('.');
    if (!h || !p || !s) return refuse('not a JWT');
    let header: { alg?: string };
    let payload: { iss?: unknown; iat?: unknown; exp?: unknown };
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as typeof header;
      payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      return refuse('not JSON');
    }
    if (header.alg !== 'RS256') return refuse('not RS256');
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${p}`), this.publicKeyPem, Buffer.from(s, 'base64url'))) return refuse('bad signature');
    if (String(payload.iss) !== String(this.appId) && payload.iss !== this.clientId) return refuse('iss is not the app');
    if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return refuse('iat/exp missing');
    const nowS = Math.floor(this.now() / 1000);
    if (!Number.isInteger(payload.iat) || payload.iat > nowS) {
      return refuse(
        'issued in the future',
        "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
      );
    }
    if (payload.exp > nowS + 600) return refuse('exp too far ahead', "'Expiration time' claim ('exp') is too far in the future");
    if (payload.exp <= nowS) {
      return refuse(
        'expired',
        "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
      );
    }
    return undefined;
  }

  private exchange(req: RecordedRequest): SimulatedResponse | undefined {
    const ct = String(req.headers['content-type'] ?? '');
    const params: Record<string, string> = {
      ...Object.fromEntries(req.query),
      ...(ct.includes('json') ? (req.json as Record<string, string>) : Object.fromEntries(new URLSearchParams(req.body))),
    };
    // GitHub answers 200 with `error` for a bad code or refresh token.
    const fail = (error: string) => ({ status: 200, body: { error, error_description: `simulated: ${error}` } });
    // Another client (an OAuth app beside the App) is not the App's to answer.
    if (params.client_id !== this.clientId) return undefined;
    if (params.client_secret !== this.clientSecret) return fail('incorrect_client_credentials');
    let login: string;
    if (params.grant_type === 'refresh_token') {
      const held = this.refreshTokens.get(params.refresh_token ?? '');
      if (!held) return fail('bad_refresh_token');
      this.refreshTokens.delete(params.refresh_token ?? '');
      this.userTokens.delete(held.access);
      login = held.login;
    } else {
      const issued = this.codes.get(params.code ?? '');
      if (!issued || issued.used) return fail('bad_verification_code');
      issued.used = true;
      if (issued.challenge !== undefined) {
        const s256 = createHash('sha256')
          .update(params.code_verifier ?? '')
          .digest('base64url');
        if (s256 !== issued.challenge) return fail('bad_verification_code');
      }
      login = issued.login;
    }
    const t = this.issueUserToken(login);
    return {
      body: {
        access_token: t.accessToken,
        expires_in: 28800,
        refresh_token: t.refreshToken,
        refresh_token_expires_in: 15897600,
        scope: '',
        token_type: 'bearer',
      },
    };
  }
}
