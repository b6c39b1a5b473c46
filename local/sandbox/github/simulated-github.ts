import { createHash, createHmac } from 'node:crypto';
import { present } from '../../../shared/domain/present';
import { startSimulatedHttp, type SimulatedResponse, type SimulatedServer, type RecordedRequest } from '../simulated-http';

export interface SimulatedHook {
  id: number;
  /** `repos/owner/name` or `orgs/org`. */
  owner: string;
  name: string;
  active: boolean;
  events: string[];
  config: { url: string; content_type: string; secret?: string; insecure_ssl?: string };
}

export interface SimulatedDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  status_code: number;
  event: string;
}

export interface SimulatedUser {
  login: string;
  id: number;
}

/**
 * The headers the code host documents for every webhook delivery, not only the three the
 * intake reads: the event, the delivery id, the hook and what it is installed on, and the body
 * signed with the hook's secret (HMAC SHA-256, and the older SHA-1).
 */
export function deliveryHeaders(d: {
  secret: string;
  event: string;
  guid: string;
  body: string;
  hookId: number;
  targetType: 'repository' | 'organization' | 'integration';
  targetId: number;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': d.event,
    'x-github-delivery': d.guid,
    'x-github-hook-id': String(d.hookId),
    'x-github-hook-installation-target-type': d.targetType,
    'x-github-hook-installation-target-id': String(d.targetId),
    'x-hub-signature': `sha1=${createHmac('sha1', d.secret).update(d.body).digest('hex')}`,
    'x-hub-signature-256': `sha256=${createHmac('sha256', d.secret).update(d.body).digest('hex')}`,
  };
}

/**
 * A stateful simulation of the code host's REST interface on 127.0.0.1, enough for the trigger
 * machinery: `GET /user`, repository and organization hooks (create, list, update,
 * delete, deliveries, redelivery), gists and repositories with ETags and 304s.
 * Tests set state directly (`users`, `gists`, `refuseHooks` ...) and read `requests`.
 */
export class SimulatedGitHub {
  readonly users = new Map<string, SimulatedUser>();
  readonly hooks = new Map<number, SimulatedHook>();
  /** Hook owners (`repos/o/r`, `orgs/x`) where hook management answers this status. */
  readonly refuseHooks = new Map<string, number>();
  readonly deliveries = new Map<number, SimulatedDelivery[]>();
  readonly redeliveries: Array<{ hookId: number; deliveryId: number }> = [];
  /**
   * When set, the token's hourly budget as the code host counts it: each authenticated
   * request but a 304 spends one, every answer carries `X-RateLimit-Remaining`/`-Reset`,
   * and an empty budget answers 403 (documented in "Rate limits for the REST API").
   */
  rateBudget: { remaining: number; resetAt: number } | undefined;
  /** What `deliver` sent, by delivery id: a redelivery sends the same event and bytes again. */
  private readonly sent = new Map<number, { event: string; body: string }>();
  /** By login: the account's gists / owned repositories, newest first. */
  readonly gists = new Map<string, Array<Record<string, unknown>>>();
  readonly repos = new Map<string, Array<Record<string, unknown>>>();
  /** By `owner/name`: the repository's watchers (`GET /repos/{o}/{r}/subscribers`), in the order listed. */
  readonly watchers = new Map<string, Array<Record<string, unknown>>>();
  /**
   * By `owner/name`: the repository's history, oldest first, as the compare API lists commits
   * (`repos/compare-commits`: `sha`, `commit` {message, author, committer, tree}, `author`,
   * `html_url`). `GET /repos/{o}/{r}/compare/{base}...{head}` answers the commits after `base`
   * up to `head`, paged (`per_page` at most 100, `page`), with `total_commits`.
   */
  readonly history = new Map<string, Array<Record<string, unknown>>>();
  /** By `owner/name#pull number#review id`: a review's comments (`pulls/list-comments-for-review`). */
  readonly reviewComments = new Map<string, Array<Record<string, unknown>>>();
  /** By `owner/name`: the repository's tags (`GET /repos/{o}/{r}/tags`, `repos/list-tags`), in the order listed. */
  readonly tags = new Map<string, Array<Record<string, unknown>>>();
  /**
   * By hook owner (`repos/o/r`, `orgs/x`): classic projects and their columns (Enterprise
   * Server; `projects/list-for-repo`, `projects/list-for-org`, `projects/list-columns` of the
   * REST description). An owner not listed answers 404, as github.com does since their removal.
   */
  readonly classicProjects = new Map<string, Array<{ id: number; name: string; columns: Array<{ id: number; name: string }> }>>();
  /**
   * Requests none of the routes above answer (the tool steps' operations): the sandbox
   * answers them from the REST description (openapi-check.ts); unset, 404 as before.
   */
  otherwise?: (req: RecordedRequest) => SimulatedResponse | Promise<SimulatedResponse>;
  /**
   * As github.com: a hook URL on a host that is not reachable over the public Internet
   * (localhost, loopback, private addresses) is refused with 422 and an `errors[]` entry.
   */
  refusePrivateHookUrls = false;
  /**
   * When set, a hook owner (`repos/o/r`, `orgs/x`) it says the code host does not know is 404,
   * as github.com answers for a repository that does not exist (the sandbox's world sets it).
   */
  hookOwnerExists?: (owner: string) => boolean;
  /**
   * Called after every write (not GET/HEAD) that succeeded, before its answer is sent; an
   * answer it returns replaces the write's (the sandbox refuses a write it cannot keep).
   */
  afterWrite?: () => SimulatedResponse | undefined;
  /** When set, the `GET /user` answer of an account (the sandbox answers the published shape). */
  profile?: (user: SimulatedUser) => Record<string, unknown> | undefined;
  /** Answers a request before the routes above when it returns an answer (the GitHub App's routes and tokens). */
  before?: (req: RecordedRequest) => SimulatedResponse | undefined;
  private nextId = 1000;

  private constructor(readonly server: SimulatedServer) {}

  static async start(options: { port?: number; record?: boolean } = {}): Promise<SimulatedGitHub> {
    let self: SimulatedGitHub | undefined;
    const server = await startSimulatedHttp(
      (req) => present(self, 'the simulated GitHub (a request came before it started)').handle(req),
      options,
    );
    self = new SimulatedGitHub(server);
    return self;
  }

  get url(): string {
    return this.server.url;
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  addUser(token: string, login: string, id?: number): SimulatedUser {
    const user = { login, id: id ?? this.nextId++ };
    this.users.set(token, user);
    return user;
  }

  hooksOf(owner: string): SimulatedHook[] {
    return [...this.hooks.values()].filter((h) => h.owner === owner);
  }

  /** Signs `body` with the hook's secret and POSTs it to the hook's URL, as the code host does. */
  async deliver(hook: SimulatedHook, event: string, body: string, guid: string): Promise<Response> {
    return this.send(hook, event, body, guid, false);
  }

  private async send(hook: SimulatedHook, event: string, body: string, guid: string, redelivery: boolean): Promise<Response> {
    const secret = hook.config.secret ?? '';
    const [kind, name] = hook.owner.split('/');
    const headers = deliveryHeaders({
      secret,
      event,
      guid,
      body,
      hookId: hook.id,
      targetType: kind === 'orgs' ? 'organization' : 'repository',
      targetId: createHash('sha1')
        .update(name ?? '')
        .digest()
        .readUInt32BE(0),
    });
    let res: Response;
    try {
      res = await fetch(hook.config.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      // An attempt that got no answer (refused, reset, timed out) is listed with status code 0.
      this.sent.set(this.recordDelivery(hook.id, { guid, event, status_code: 0, redelivery }).id, { event, body });
      throw e;
    }
    this.sent.set(this.recordDelivery(hook.id, { guid, event, status_code: res.status, redelivery }).id, { event, body });
    return res;
  }

  /**
   * Records a delivery attempt as the code host lists it (newest first); `delivered_at`
   * defaults to now.
   */
  recordDelivery(
    hookId: number,
    d: { guid: string; event: string; status_code: number; redelivery?: boolean; delivered_at?: string },
  ): SimulatedDelivery {
    const delivery: SimulatedDelivery = {
      id: this.nextId++,
      ...d,
      delivered_at: d.delivered_at ?? new Date().toISOString(),
      redelivery: d.redelivery ?? false,
    };
    this.deliveries.set(hookId, [delivery, ...(this.deliveries.get(hookId) ?? [])]);
    return delivery;
  }

  /** The hooks and the id sequence as plain data, for the sandbox's state file. */
  hookState(): { nextId: number; hooks: SimulatedHook[] } {
    return { nextId: this.nextId, hooks: [...this.hooks.values()] };
  }

  restoreHooks(state: { nextId: number; hooks: SimulatedHook[] }): void {
    this.nextId = Math.max(this.nextId, state.nextId);
    this.hooks.clear();
    for (const h of state.hooks) this.hooks.set(h.id, structuredClone(h));
  }

  private async handle(req: RecordedRequest): Promise<SimulatedResponse> {
    // A part played beside the REST routes (the GitHub App, simulated-github-app.ts) answers first.
    const early = this.before?.(req);
    if (early) return early;
    const answer = await this.limited(req);
    if (req.method === 'GET' || req.method === 'HEAD' || (answer.status ?? 200) >= 400) return answer;
    return this.afterWrite?.() ?? answer;
  }

  private async limited(req: RecordedRequest): Promise<SimulatedResponse> {
    const budget = this.rateBudget;
    const authenticated = /^(?:Bearer|token) (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    if (!budget || !authenticated || !this.users.has(authenticated)) return this.route(req);
    const rateHeaders = () => ({
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': String(budget.remaining),
      'x-ratelimit-reset': String(budget.resetAt),
    });
    if (budget.remaining <= 0)
      return {
        status: 403,
        headers: rateHeaders(),
        body: {
          message: 'API rate limit exceeded for user.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        },
      };
    const answer = await this.route(req);
    if (answer.status !== 304) budget.remaining--;
    return { ...answer, headers: { ...answer.headers, ...rateHeaders() } };
  }

  private route(req: RecordedRequest): SimulatedResponse | Promise<SimulatedResponse> {
    // The code host takes both schemes for a token (`Bearer`, and `token` as Octokit sends it).
    const auth = /^(?:Bearer|token) (.+)$/i.exec(String(req.headers.authorization ?? ''));
    const user = auth?.[1] ? this.users.get(auth[1]) : undefined;
    if (!user) return { status: 401, body: { message: 'Bad credentials' } };
    const p = req.path;
    if (req.method === 'GET' && p === '/user')
      return {
        body: this.profile?.(user) ?? { login: user.login, id: user.id, type: 'User' },
        headers: { 'x-oauth-scopes': 'repo, admin:repo_hook' },
      };
    if (req.method === 'GET' && p === '/gists') return this.paged(req, this.gists.get(user.login) ?? [], '/gists');
    if (req.method === 'GET' && p === '/user/repos') return this.paged(req, this.repos.get(user.login) ?? [], '/user/repos');
    const org = /^\/orgs\/([^/]+)\/repos$/.exec(p);
    if (req.method === 'GET' && org)
      return this.paged(req, this.repos.get(decodeURIComponent(present(org[1], 'organization in the path'))) ?? [], p);
    const classic = this.classicProjectRoute(req);
    if (classic) return classic;
    const repoList = /^\/repos\/([^/]+\/[^/]+)\/(subscribers|tags)$/.exec(p) ?? /^\/repositories\/(\d+)\/(subscribers|tags)$/.exec(p);
    if (req.method === 'GET' && repoList) {
      const repository = present(repoList[1], 'repository in the path');
      const list = repoList[2] === 'tags' ? this.tags : this.watchers;
      const name = /^\d+$/.test(repository)
        ? [...list.keys()].find((n) => String(SimulatedGitHub.repositoryId(n)) === repository)
        : decodeURIComponent(repository);
      const items = name ? list.get(name) : undefined;
      if (!name || !items) return this.otherwise?.(req) ?? { status: 404, body: { message: 'Not Found' } };
      // The code host's Link header names the repository by id (`/repositories/{id}/...`).
      return this.paged(req, items, `/repositories/${SimulatedGitHub.repositoryId(name)}/${repoList[2]}`);
    }
    const compare = /^\/repos\/([^/]+\/[^/]+)\/compare\/([^/]+)$/.exec(p);
    // A repository without a `history` here is left to `otherwise` (the sandbox's world compares its own).
    if (req.method === 'GET' && compare && (this.history.has(decodeURIComponent(compare[1] ?? '')) || !this.otherwise))
      return this.compare(req, decodeURIComponent(present(compare[1], 'repository')), compare[2] ?? '');
    const reviewComments = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/reviews\/(\d+)\/comments$/.exec(p);
    if (req.method === 'GET' && reviewComments) {
      const list = this.reviewComments.get(
        `${decodeURIComponent(present(reviewComments[1], 'repository'))}#${reviewComments[2]}#${reviewComments[3]}`,
      );
      return list ? this.paged(req, list, p) : { status: 404, body: { message: 'Not Found' } };
    }
    const m = /^\/(repos\/[^/]+\/[^/]+|orgs\/[^/]+)\/hooks(?:\/(\d+))?(\/deliveries(?:\/(\d+)\/attempts)?)?$/.exec(p);
    if (m)
      return this.hookRoute(
        req,
        decodeURIComponent(present(m[1], 'hook owner in the path')),
        m[2] ? Number(m[2]) : undefined,
        m[3],
        m[4] ? Number(m[4]) : undefined,
      );
    return this.otherwise ? this.otherwise(req) : { status: 404, body: { message: 'Not Found' } };
  }

  /** Classic projects and their columns (`projects/list-for-repo`, `projects/list-for-org`, `projects/list-columns`); undefined for any other request. */
  private classicProjectRoute(req: RecordedRequest): SimulatedResponse | undefined {
    const p = req.path;
    const projects = /^\/(repos\/[^/]+\/[^/]+|orgs\/[^/]+)\/projects$/.exec(p);
    if (req.method === 'GET' && projects) {
      const owner = decodeURIComponent(present(projects[1], 'project owner in the path'));
      const list = this.classicProjects.get(owner);
      if (!list) return { status: 404, body: { message: 'Not Found' } };
      const view = list.map((x, i) => ({
        id: x.id,
        node_id: `MDc6UHJvamVjdDE${x.id}`,
        name: x.name,
        body: null,
        number: i + 1,
        state: 'open',
        url: `${this.url}/projects/${x.id}`,
        html_url: `https://github.example/${owner}/projects/${i + 1}`,
        columns_url: `${this.url}/projects/${x.id}/columns`,
        owner_url: `${this.url}/${owner}`,
        creator: null,
        created_at: '2011-04-10T20:09:31Z',
        updated_at: '2014-03-03T18:58:10Z',
      }));
      return this.paged(req, view, p);
    }
    const columns = /^\/projects\/(\d+)\/columns$/.exec(p);
    if (req.method === 'GET' && columns) {
      const project = [...this.classicProjects.values()].flat().find((x) => String(x.id) === columns[1]);
      if (!project) return { status: 404, body: { message: 'Not Found' } };
      const view = project.columns.map((c) => ({
        url: `${this.url}/projects/columns/${c.id}`,
        project_url: `${this.url}/projects/${project.id}`,
        cards_url: `${this.url}/projects/columns/${c.id}/cards`,
        id: c.id,
        node_id: `MDEzOlByb2plY3RDb2x1bW4${c.id}`,
        name: c.name,
        created_at: '2016-09-05T14:18:44Z',
        updated_at: '2016-09-05T14:22:28Z',
      }));
      return this.paged(req, view, p);
    }
    return undefined;
  }

  /** A tag as `GET /repos/{o}/{r}/tags` lists it (`repos/list-tags`: name, commit, zipball_url, tarball_url, node_id). */
  tag(repository: string, name: string, sha: string): Record<string, unknown> {
    return {
      name,
      commit: { sha, url: `${this.url}/repos/${repository}/commits/${sha}` },
      zipball_url: `${this.url}/repos/${repository}/zipball/refs/tags/${name}`,
      tarball_url: `${this.url}/repos/${repository}/tarball/refs/tags/${name}`,
      node_id: `MDM6UmVmcmVmcy90YWdzLw${Buffer.from(name).toString('base64')}`,
    };
  }

  /** A commit as the compare API lists it. */
  commit(repository: string, sha: string, message: string, date: string): Record<string, unknown> {
    const person = { name: 'Monalisa Octocat', email: 'mona@github.com', date };
    return {
      sha,
      node_id: `C_${sha.slice(0, 12)}`,
      commit: { message, author: person, committer: person, tree: { sha: sha.split('').reverse().join('') } },
      author: { login: 'octocat', id: 1 },
      committer: { login: 'octocat', id: 1 },
      parents: [],
      url: `${this.url}/repos/${repository}/commits/${sha}`,
      html_url: `https://github.example/${repository}/commit/${sha}`,
    };
  }

  /** `GET /repos/{o}/{r}/compare/{base}...{head}` over `history`: the commits after base up to head, paged. */
  private compare(req: RecordedRequest, repository: string, basehead: string): SimulatedResponse {
    const [base = '', head = ''] = decodeURIComponent(basehead).split('...');
    const list = this.history.get(repository) ?? [];
    const at = (ref: string) => list.findIndex((c) => c.sha === ref);
    const from = at(base);
    const to = at(head);
    if (from < 0 || to < 0) return { status: 404, body: { message: 'Not Found' } };
    const commits = list.slice(from + 1, to + 1);
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 250) || 250));
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    return {
      body: {
        status: 'ahead',
        ahead_by: commits.length,
        behind_by: 0,
        total_commits: commits.length,
        commits: commits.slice((page - 1) * perPage, page * perPage),
        files: [],
      },
      headers: { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) },
    };
  }

  /** A stable numeric id for a repository name (what the code host's Link headers carry). */
  static repositoryId(fullName: string): number {
    return createHash('sha1').update(fullName).digest().readUInt32BE(0) % 1_000_000_000;
  }

  /**
   * A list page as the code host pages it: `per_page` (default 30, at most 100) and `page`,
   * a `Link` header with absolute `next`/`last` URLs, an ETag per page and 304 for an
   * unchanged one (documented in "Using pagination in the REST API" and "conditional requests").
   */
  private paged(req: RecordedRequest, items: unknown[], linkPath: string): SimulatedResponse {
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const etag = `"${createHash('sha1').update(JSON.stringify(slice)).digest('hex')}"`;
    const lastPage = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n: number, rel: string) => {
      const q = new URLSearchParams(req.query);
      q.set('page', String(n));
      return `<${this.url}${linkPath}?${q.toString()}>; rel="${rel}"`;
    };
    const links = page < lastPage ? [link(page + 1, 'next'), link(lastPage, 'last')] : [];
    if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
    return { body: slice, headers: { etag, ...(links.length > 0 ? { link: links.join(', ') } : {}) } };
  }

  /**
   * `GET .../hooks/{id}/deliveries` as the REST description has it: newest first, `per_page`
   * (default 30, at most 100), `cursor` (the delivery a page starts from; the `Link` header's
   * `next` URL carries the next page's), `status` (`success`: status codes 200-399,
   * `failure`: 400-599, so an attempt that got no answer, status code 0, is in neither).
   */
  private deliveryPage(req: RecordedRequest, hook: SimulatedHook): SimulatedResponse {
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 30) || 30));
    const status = req.query.get('status');
    if (status !== null && status !== 'success' && status !== 'failure')
      return { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Hook', field: 'status', code: 'invalid' }] } };
    const inRange = (code: number) => (status === 'success' ? code >= 200 && code <= 399 : code >= 400 && code <= 599);
    const all = (this.deliveries.get(hook.id) ?? []).filter((d) => status === null || inRange(d.status_code));
    const cursor = req.query.get('cursor');
    let from = 0;
    if (cursor !== null) {
      const m = /^v1_(\d+)$/.exec(cursor);
      if (!m) return { status: 400, body: { message: 'Bad Request' } };
      const start = Number(m[1]);
      from = all.findIndex((d) => d.id <= start);
      if (from < 0) from = all.length;
    }
    const page = all.slice(from, from + perPage);
    const after = all[from + perPage];
    if (!after) return { body: page };
    const q = new URLSearchParams(req.query);
    q.set('cursor', `v1_${after.id}`);
    return { body: page, headers: { link: `<${this.url}/${hook.owner}/hooks/${hook.id}/deliveries?${q.toString()}>; rel="next"` } };
  }

  /** `POST .../hooks`: refused as github.com refuses a URL it cannot reach, or one already hooked. */
  private createHook(req: RecordedRequest, owner: string, view: (h: SimulatedHook) => Record<string, unknown>): SimulatedResponse {
    const body = req.json as { name?: string; events?: string[]; active?: boolean; config?: SimulatedHook['config'] };
    const config = body?.config;
    if (!config?.url || !Array.isArray(body.events)) return { status: 422, body: { message: 'Validation Failed' } };
    const host = URL.canParse(config.url) ? new URL(config.url).hostname : '';
    if (this.refusePrivateHookUrls && /^(localhost|127\.|10\.|192\.168\.|\[::1\]$|0\.0\.0\.0$)/.test(host)) {
      return {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'Hook',
              code: 'custom',
              message: `Sorry, the URL host ${host} is not supported because it isn't reachable over the public Internet`,
            },
          ],
          documentation_url: 'https://docs.github.com/rest/repos/webhooks#create-a-repository-webhook',
        },
      };
    }
    if (this.hooksOf(owner).some((h) => h.config.url === config.url))
      return { status: 422, body: { message: 'Hook already exists on this repository' } };
    const hook: SimulatedHook = {
      id: this.nextId++,
      owner,
      name: body.name ?? 'web',
      active: body.active ?? true,
      events: body.events,
      config,
    };
    this.hooks.set(hook.id, hook);
    return { status: 201, body: view(hook) };
  }

  private hookRoute(
    req: RecordedRequest,
    owner: string,
    hookId: number | undefined,
    sub: string | undefined,
    deliveryId: number | undefined,
  ): SimulatedResponse {
    if (this.hookOwnerExists && !this.hookOwnerExists(owner)) return { status: 404, body: { message: 'Not Found' } };
    const refused = this.refuseHooks.get(owner);
    if (refused)
      return { status: refused, body: { message: refused === 404 ? 'Not Found' : 'Resource not accessible by personal access token' } };
    const view = (h: SimulatedHook) => ({
      id: h.id,
      name: 'web',
      active: h.active,
      events: h.events,
      config: { ...h.config, secret: h.config.secret ? '********' : undefined },
    });
    if (hookId === undefined) {
      if (req.method === 'GET') return { body: this.hooksOf(owner).map(view) };
      if (req.method !== 'POST') return { status: 404, body: { message: 'Not Found' } };
      return this.createHook(req, owner, view);
    }
    const hook = this.hooks.get(hookId);
    if (!hook || hook.owner !== owner) return { status: 404, body: { message: 'Not Found' } };
    if (sub === '/deliveries' && req.method === 'GET') return this.deliveryPage(req, hook);
    if (deliveryId !== undefined && req.method === 'POST') {
      const attempt = (this.deliveries.get(hookId) ?? []).find((d) => d.id === deliveryId);
      if (!attempt) return { status: 404, body: { message: 'Not Found' } };
      this.redeliveries.push({ hookId, deliveryId });
      // Sent again later, same id and bytes, as a new attempt marked `redelivery`.
      const sent = this.sent.get(deliveryId);
      if (sent) setImmediate(() => this.send(hook, sent.event, sent.body, attempt.guid, true).catch(() => undefined));
      return { status: 202, body: {} };
    }
    if (sub) return { status: 404, body: { message: 'Not Found' } };
    if (req.method === 'GET') return { body: view(hook) };
    if (req.method === 'DELETE') {
      this.hooks.delete(hookId);
      return { status: 204 };
    }
    if (req.method === 'PATCH') {
      const body = req.json as Partial<SimulatedHook>;
      if (body.events) hook.events = body.events;
      if (body.config) hook.config = { ...hook.config, ...body.config };
      if (body.active !== undefined) hook.active = body.active;
      return { body: view(hook) };
    }
    return { status: 404, body: { message: 'Not Found' } };
  }
}
