import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake authorization server on 127.0.0.1 speaking both providers' dialects:
 * the code host (`/login/oauth/authorize`, `/login/oauth/access_token` answering HTTP 200
 * with `error` for a bad code or a dead refresh token (`bad_refresh_token`), expiring user
 * tokens with rotating refresh tokens when asked, `/user`, `PUT /user/starred/{owner}/{repo}`,
 * `/applications/:client/grant|token`) and the
 * collection service (`/oauth/authorization`, the path of the partner API reference's
 * OpenAPI security scheme; `/oauth/token` JSON with refresh_token grant; `/oauth/revoke`;
 * and the partner API's `GET /partner_api/v1/me` for the tokens it issued). It really checks the client credentials, the redirect URI and the PKCE
 * verifier against the S256 challenge, and records every value that must never leak.
 */

export interface TokenCall {
  path: string;
  contentType: string;
  params: Record<string, string>;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  method: string;
  used: boolean;
}

export interface FakeOAuthBehaviour {
  /** The authorize endpoint sends the browser back with `error=access_denied`. */
  deny: boolean;
  /** The token endpoint answers HTTP 200 with `{error: 'bad_verification_code'}` to every code. */
  codeErrorWith200: boolean;
  /** Statuses answered to the next token calls before the real answer (e.g. [503]). */
  failNextTokenCalls: number[];
  /** Every refresh is refused with `invalid_grant`. */
  refreshInvalidGrant: boolean;
  /** Refreshes issue a new refresh token and invalidate the old one. */
  rotateRefreshTokens: boolean;
  /** `expires_in` of issued tokens (seconds); the code host's tokens carry none. */
  expiresIn: number;
  /** How long a refresh takes, so concurrent callers really overlap (ms). */
  refreshDelayMs: number;
  /** Extra fields in the collection service's token answer. */
  extraTokenFields: Record<string, unknown>;
  /** The collection service's `GET /partner_api/v1/me` answer (the reference documents `full_name`). */
  contentsnareMe: Record<string, unknown>;
  /** When set, `GET /partner_api/v1/me` answers this status (an outage or a refusal) instead. */
  contentsnareMeStatus?: number;
  /**
   * The code host's app uses user access tokens that expire (GitHub Apps by default): code
   * exchanges answer `expires_in` (28800), `refresh_token` (ghr_...) and
   * `refresh_token_expires_in` (15897600), as GitHub's "Refreshing user access tokens" documents.
   */
  githubExpiringTokens: boolean;
}

export interface FakeOAuthServer {
  url: string;
  clientId: string;
  clientSecret: string;
  behaviour: FakeOAuthBehaviour;
  tokenCalls: TokenCall[];
  /** Refresh-grant calls only. */
  refreshCalls(): TokenCall[];
  revokeCalls: { path: string; method: string; authorization?: string; body: string }[];
  userCalls: number;
  /** `GET /partner_api/v1/me` calls (collection-service account lookups). */
  meCalls: number;
  /** Access tokens the fake considers valid now. */
  validAccessTokens: Set<string>;
  /** Every code, token, verifier and secret the fake saw or issued: the leak scan's list. */
  sensitive(): string[];
  /** Issues a refresh token directly (tests that start from a stored token). */
  issueRefreshToken(): string;
  /** Issues the code host's expiring user access token and its refresh token directly. */
  issueGithubExpiringToken(): { accessToken: string; refreshToken: string };
  /** The "browser": opens the authorize URL and returns where the fake sends it back to. */
  browse(authorizeUrl: string): Promise<URL>;
  close(): Promise<void>;
}

const rand = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;
const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

export async function startFakeOAuthServer(options: { clientId?: string; clientSecret?: string } = {}): Promise<FakeOAuthServer> {
  const clientId = options.clientId ?? 'fake-client-id';
  const clientSecret = options.clientSecret ?? rand('fake-client-secret-');
  const codes = new Map<string, IssuedCode>();
  const refreshTokens = new Set<string>();
  const seen = new Set<string>([clientSecret]);
  const tokenCalls: TokenCall[] = [];
  const revokeCalls: FakeOAuthServer['revokeCalls'] = [];
  const validAccessTokens = new Set<string>();
  const behaviour: FakeOAuthBehaviour = {
    deny: false,
    codeErrorWith200: false,
    failNextTokenCalls: [],
    refreshInvalidGrant: false,
    rotateRefreshTokens: true,
    expiresIn: 7200,
    refreshDelayMs: 30,
    extraTokenFields: {},
    contentsnareMe: { id: 'usr_fake_1', full_name: 'Fake Snare Admin', email: 'admin@agency.example' },
    githubExpiringTokens: false,
  };
  // The code host's refresh tokens and the access token issued beside each: a refresh ends both.
  const githubRefreshTokens = new Map<string, string>();
  let userCalls = 0;
  let meCalls = 0;

  const issue = (withRefresh: boolean, expires: boolean) => {
    const access = rand('fake-at-');
    validAccessTokens.add(access);
    seen.add(access);
    const answer: Record<string, unknown> = { access_token: access, token_type: 'bearer', scope: 'repo,gist' };
    if (withRefresh) {
      const refresh = rand('fake-rt-');
      refreshTokens.add(refresh);
      seen.add(refresh);
      answer.refresh_token = refresh;
    }
    if (expires) answer.expires_in = behaviour.expiresIn;
    return answer;
  };

  /**
   * A code-host user access token that expires, as GitHub answers it: `ghu_` access token,
   * 8 hours, a `ghr_` refresh token for about 6 months, an empty scope (GitHub Apps have
   * permissions, not scopes).
   */
  const issueGithubExpiring = () => {
    const access = rand('ghu_fake');
    const refresh = rand('ghr_fake');
    validAccessTokens.add(access);
    githubRefreshTokens.set(refresh, access);
    seen.add(access);
    seen.add(refresh);
    return {
      access_token: access,
      expires_in: 28800,
      refresh_token: refresh,
      refresh_token_expires_in: 15897600,
      scope: '',
      token_type: 'bearer',
    };
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const url = new URL(req.url ?? '/', 'http://fake.invalid');
        const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(value === undefined ? '' : JSON.stringify(value));
        };
        const path = url.pathname;
        if (req.method === 'GET' && (path === '/login/oauth/authorize' || path === '/oauth/authorization')) {
          const q = url.searchParams;
          const redirect = new URL(q.get('redirect_uri') ?? 'http://invalid.invalid/');
          const state = q.get('state');
          if (state) redirect.searchParams.set('state', state);
          if (behaviour.deny) redirect.searchParams.set('error', 'access_denied');
          else {
            const code = rand('fake-code-');
            seen.add(code);
            codes.set(code, {
              clientId: q.get('client_id') ?? '',
              redirectUri: q.get('redirect_uri') ?? '',
              challenge: q.get('code_challenge') ?? '',
              method: q.get('code_challenge_method') ?? '',
              used: false,
            });
            redirect.searchParams.set('code', code);
          }
          res.writeHead(302, { location: redirect.toString() });
          res.end();
          return;
        }
        if (req.method === 'POST' && (path === '/login/oauth/access_token' || path === '/oauth/token')) {
          const contentType = req.headers['content-type'] ?? '';
          // GitHub documents its parameters as query parameters; a form body works too.
          const params: Record<string, string> = {
            ...Object.fromEntries(url.searchParams),
            ...(contentType.includes('json')
              ? (JSON.parse(body) as Record<string, string>)
              : Object.fromEntries(new URLSearchParams(body))),
          };
          for (const k of ['code', 'code_verifier', 'refresh_token', 'client_secret']) if (params[k]) seen.add(params[k]);
          tokenCalls.push({ path, contentType, params });
          const isGithub = path === '/login/oauth/access_token';
          // The code host answers 200 even for errors; the collection service 400.
          const fail = (error: string) => send(isGithub ? 200 : 400, { error, error_description: `fake says ${error}` });
          const forced = behaviour.failNextTokenCalls.shift();
          if (forced !== undefined) return send(forced, { message: 'fake outage' });
          if (params.client_id !== clientId || params.client_secret !== clientSecret) return fail('invalid_client');
          if (isGithub && params.grant_type === 'refresh_token') {
            await new Promise((r) => setTimeout(r, behaviour.refreshDelayMs));
            // A used, unknown or expired refresh token: HTTP 200 with `bad_refresh_token`.
            const rt = params.refresh_token ?? '';
            const pairedAccess = githubRefreshTokens.get(rt);
            if (behaviour.refreshInvalidGrant || pairedAccess === undefined) {
              return send(200, {
                error: 'bad_refresh_token',
                error_description: 'The refresh token passed is incorrect or expired.',
                error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors',
              });
            }
            // Once used, the refresh token and the old user access token no longer work.
            githubRefreshTokens.delete(rt);
            validAccessTokens.delete(pairedAccess);
            return send(200, issueGithubExpiring());
          }
          if (params.grant_type === 'refresh_token') {
            await new Promise((r) => setTimeout(r, behaviour.refreshDelayMs));
            const rt = params.refresh_token ?? '';
            if (behaviour.refreshInvalidGrant || !refreshTokens.has(rt)) return fail('invalid_grant');
            if (behaviour.rotateRefreshTokens) refreshTokens.delete(rt);
            const answer = issue(behaviour.rotateRefreshTokens, true);
            return send(200, answer);
          }
          if (!isGithub && params.grant_type !== 'authorization_code') return fail('unsupported_grant_type');
          if (behaviour.codeErrorWith200)
            return send(200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
          const issued = codes.get(params.code ?? '');
          if (!issued || issued.used) return fail(isGithub ? 'bad_verification_code' : 'invalid_grant');
          issued.used = true;
          if (issued.clientId !== clientId || issued.redirectUri !== params.redirect_uri) return fail('redirect_uri_mismatch');
          if (issued.method !== 'S256' || s256(params.code_verifier ?? '') !== issued.challenge) return fail('invalid_grant');
          if (isGithub && behaviour.githubExpiringTokens) return send(200, issueGithubExpiring());
          return send(200, { ...issue(!isGithub, !isGithub), ...(isGithub ? {} : behaviour.extraTokenFields) });
        }
        if (req.method === 'GET' && path === '/user') {
          userCalls++;
          // The code host takes both `Bearer` and `token` (Octokit's word) before a token.
          const token = (req.headers.authorization ?? '').replace(/^(Bearer|token) /, '');
          if (!validAccessTokens.has(token)) return send(401, { message: 'Bad credentials' });
          return send(200, { login: 'octocat', id: 583231 }, { 'x-oauth-scopes': 'repo, gist, workflow' });
        }
        if (req.method === 'PUT' && /^\/user\/starred\/[^/]+\/[^/]+$/.test(path)) {
          // activity/star-repo-for-authenticated-user: 204 without a body; 401 for a dead token.
          const token = (req.headers.authorization ?? '').replace(/^(Bearer|token) /, '');
          if (!validAccessTokens.has(token)) return send(401, { message: 'Bad credentials' });
          res.writeHead(204);
          res.end();
          return;
        }
        if (req.method === 'GET' && path === '/partner_api/v1/me') {
          meCalls++;
          const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
          if (!validAccessTokens.has(token)) return send(401, { errors: ['Not authorized'] });
          if (behaviour.contentsnareMeStatus !== undefined) return send(behaviour.contentsnareMeStatus, { errors: ['fake outage'] });
          return send(200, behaviour.contentsnareMe);
        }
        if (path.startsWith('/applications/') || path === '/oauth/revoke') {
          revokeCalls.push({ path, method: req.method ?? '', authorization: req.headers.authorization, body });
          if (path === '/oauth/revoke') return send(200, {});
          const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
          if (req.headers.authorization !== expected) return send(401, { message: 'Bad credentials' });
          const token = (JSON.parse(body || '{}') as { access_token?: string }).access_token ?? '';
          if (!validAccessTokens.delete(token)) return send(404, { message: 'Not Found' });
          res.writeHead(204);
          res.end();
          return;
        }
        send(404, { message: 'no such fake route' });
      })().catch((e: unknown) => {
        res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    clientId,
    clientSecret,
    behaviour,
    tokenCalls,
    refreshCalls: () => tokenCalls.filter((c) => c.params.grant_type === 'refresh_token'),
    revokeCalls,
    get userCalls() {
      return userCalls;
    },
    get meCalls() {
      return meCalls;
    },
    validAccessTokens,
    sensitive: () => [...seen],
    issueRefreshToken: () => {
      const rt = rand('fake-rt-');
      refreshTokens.add(rt);
      seen.add(rt);
      return rt;
    },
    issueGithubExpiringToken: () => {
      const answer = issueGithubExpiring();
      return { accessToken: answer.access_token, refreshToken: answer.refresh_token };
    },
    browse: async (authorizeUrl: string) => {
      const res = await fetch(authorizeUrl, { redirect: 'manual' });
      const location = res.headers.get('location');
      if (res.status !== 302 || !location) throw new Error(`fake authorize answered ${res.status}`);
      return new URL(location);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
