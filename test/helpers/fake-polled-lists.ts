import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFakeHttp, type FakeServer, type RecordedRequest } from './fake-http';

/**
 * A fake of the code host's three polled lists, written from their published descriptions
 * (local/sandbox/github/github-openapi-ops.json: `gists/list` GET /gists,
 * `repos/list-for-authenticated-user` GET /user/repos, `repos/list-for-org` GET
 * /orgs/{org}/repos, each with `per_page` (default 30, max 100) and `page`) and the REST
 * guide's rules: pages linked by a `Link` header, an `ETag` on each answer and 304 to an
 * `If-None-Match` that matches, `X-RateLimit-Limit/Remaining/Used/Reset` on every answer, and
 * a 304 to a conditional request not counted against the primary limit. Every answer waits
 * `delayMs` (the network and the host's work), and requests are counted, for the polling
 * benchmark and tests that count requests. Lists are newest first; tests mutate them.
 */
export class FakePolledLists {
  /** Bearer token -> login. */
  readonly users = new Map<string, string>();
  /** `gists:<login>`, `repos:<login>`, `org:<org>` -> items, newest first. */
  readonly lists = new Map<string, Array<Record<string, unknown>>>();
  /** Requests answered, 304s among them, and the most in flight at once (all and per token). */
  readonly counts = { requests: 0, notModified: 0, maxInFlight: 0, maxInFlightPerToken: 0 };
  /** Primary budget used per token this hour. */
  readonly used = new Map<string, number>();
  delayMs = 0;
  readonly limit = 5000;
  private inFlight = 0;
  private readonly inFlightByToken = new Map<string, number>();

  private constructor(readonly server: FakeServer) {}

  static async start(delayMs = 0): Promise<FakePolledLists> {
    let self: FakePolledLists | undefined;
    const server = await startFakeHttp((req) => self!.handle(req));
    self = new FakePolledLists(server);
    self.delayMs = delayMs;
    return self;
  }

  get url(): string {
    return this.server.url;
  }

  resetCounts(): void {
    Object.assign(this.counts, { requests: 0, notModified: 0, maxInFlight: 0, maxInFlightPerToken: 0 });
    // The recorder keeps every request; a benchmark makes tens of thousands.
    this.server.requests.length = 0;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private async handle(req: RecordedRequest) {
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    this.counts.requests++;
    this.inFlight++;
    const mine = (this.inFlightByToken.get(token) ?? 0) + 1;
    this.inFlightByToken.set(token, mine);
    this.counts.maxInFlight = Math.max(this.counts.maxInFlight, this.inFlight);
    this.counts.maxInFlightPerToken = Math.max(this.counts.maxInFlightPerToken, mine);
    try {
      if (this.delayMs > 0) await sleep(this.delayMs);
      return this.answer(req, token);
    } finally {
      this.inFlight--;
      this.inFlightByToken.set(token, this.inFlightByToken.get(token)! - 1);
    }
  }

  private answer(req: RecordedRequest, token: string) {
    const login = this.users.get(token);
    if (!login) return { status: 401, body: { message: 'Bad credentials' } };
    let key: string | undefined;
    if (req.method === 'GET' && req.path === '/gists') key = `gists:${login}`;
    else if (req.method === 'GET' && req.path === '/user/repos') key = `repos:${login}`;
    else {
      const org = /^\/orgs\/([^/]+)\/repos$/.exec(req.path);
      if (req.method === 'GET' && org) key = `org:${decodeURIComponent(org[1]!)}`;
    }
    if (!key) return { status: 404, body: { message: 'Not Found' } };
    const all = this.lists.get(key) ?? [];
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    const slice = all.slice((page - 1) * perPage, page * perPage);
    const etag = `"${createHash('sha1').update(JSON.stringify(slice)).digest('hex')}"`;
    const conditionalHit = req.headers['if-none-match'] === etag;
    const used = (this.used.get(token) ?? 0) + (conditionalHit ? 0 : 1);
    this.used.set(token, used);
    const rate = {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - used)),
      'x-ratelimit-used': String(used),
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-resource': 'core',
    };
    if (conditionalHit) {
      this.counts.notModified++;
      return { status: 304, headers: { etag, ...rate } };
    }
    const links: string[] = [];
    const query = (p: number) => {
      const q = new URLSearchParams(req.query);
      q.set('page', String(p));
      return `${this.url}${req.path}?${q}`;
    };
    if (page * perPage < all.length)
      links.push(`<${query(page + 1)}>; rel="next"`, `<${query(Math.ceil(all.length / perPage))}>; rel="last"`);
    return { body: slice, headers: { etag, ...rate, ...(links.length > 0 ? { link: links.join(', ') } : {}) } };
  }
}
