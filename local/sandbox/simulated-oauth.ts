import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';

/** A request as the OAuth routes read it. */
export interface OAuthRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The raw body: a form or JSON (the token endpoint takes both). */
  body: string;
  contentType: string;
}

export interface OAuthAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface SimulatedOAuthOptions {
  /** The authorize page's paths (a provider may be documented under two). */
  authorizePaths: string[];
  tokenPath: string;
  /** The prefix of the access tokens it issues (`gho_` as the code host's OAuth apps). */
  tokenPrefix: string;
  /** Access tokens expire after this long and come with a rotating refresh token; unset: they never expire. */
  expiresInSeconds?: number;
  /** The account the authorize page approves as, at once (the sandbox's demo user). */
  approveAs: string;
  /** A new access token for `login`: the service accepts it from now on (and a refreshed one replaces `replaced`). */
  onToken(accessToken: string, login: string, replaced?: string): void;
}

/** What the sandbox keeps of an authorization server across restarts: its client, and the tokens it issued that still work. */
export const oauthServerStateSchema = z.object({
  clientId: z.string(),
  clientSecret: z.string(),
  tokens: z.array(z.tuple([z.string(), z.string()])),
  refresh: z.array(z.tuple([z.string(), z.object({ login: z.string(), access: z.string(), scope: z.string() })])),
});
export type OAuthServerState = z.infer<typeof oauthServerStateSchema>;

const rand = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

/**
 * An OAuth 2 authorization-code server as the sandbox's simulated providers play it: one
 * client (its id and secret, made at each start), an authorize page that approves at once as
 * the demo user and sends the browser back to `redirect_uri` with a single-use `code` and the
 * `state`, and a token endpoint that exchanges the code (checking the client secret, the
 * `redirect_uri` when it is sent, and the PKCE verifier when a challenge was) and, when tokens
 * expire, a refresh token. Errors are the standard JSON `error` answers.
 */
export class SimulatedOAuthServer {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The access tokens it issued that still work, and whose they are. */
  readonly tokens: Map<string, string>;
  private readonly codes = new Map<string, { login: string; redirectUri: string; challenge?: string; scope: string }>();
  private readonly refresh: Map<string, { login: string; access: string; scope: string }>;
  /** Called when it issued a token (the sandbox keeps them across a restart). */
  onIssued: (() => void) | undefined;

  /** `kept`: the client and tokens of an earlier run, which go on working. */
  constructor(
    private readonly options: SimulatedOAuthOptions,
    kept?: OAuthServerState,
  ) {
    this.clientId = kept?.clientId ?? rand('sandbox-client-');
    this.clientSecret = kept?.clientSecret ?? rand('sandbox-secret-');
    this.tokens = new Map(kept?.tokens);
    this.refresh = new Map(kept?.refresh);
  }

  state(): OAuthServerState {
    return { clientId: this.clientId, clientSecret: this.clientSecret, tokens: [...this.tokens], refresh: [...this.refresh] };
  }

  /**
   * Answers the authorize page and the token endpoint for its client; undefined for any other
   * request, and for another client's (the simulated GitHub App has its own beside it).
   */
  handle(req: OAuthRequest): OAuthAnswer | undefined {
    if (req.method === 'GET' && this.options.authorizePaths.includes(req.path) && req.query.get('client_id') === this.clientId)
      return this.authorize(req.query);
    if (req.method !== 'POST' || req.path !== this.options.tokenPath) return undefined;
    const fields = this.fields(req);
    return fields.client_id === this.clientId ? this.token(fields) : undefined;
  }

  private authorize(query: URLSearchParams): OAuthAnswer {
    const redirectUri = query.get('redirect_uri');
    if (!redirectUri || !URL.canParse(redirectUri))
      return { status: 400, body: { error: 'invalid_request', error_description: 'no redirect_uri' } };
    const code = rand('code-');
    const challenge = query.get('code_challenge') ?? undefined;
    this.codes.set(code, {
      login: this.options.approveAs,
      redirectUri,
      scope: query.get('scope') ?? '',
      ...(challenge ? { challenge } : {}),
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return { status: 302, headers: { location: back.toString() } };
  }

  private fields(req: OAuthRequest): Record<string, string> {
    if (!req.contentType.includes('json')) return Object.fromEntries(new URLSearchParams(req.body));
    try {
      const parsed: unknown = JSON.parse(req.body);
      return parsed && typeof parsed === 'object' ? Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)])) : {};
    } catch {
      return {};
    }
  }

  private token(f: Record<string, string>): OAuthAnswer {
    const fail = (error: string) => ({ status: 400, body: { error, error_description: `simulated: ${error}` } });
    if (f.client_secret !== this.clientSecret) return fail('invalid_client');
    if (f.grant_type === 'refresh_token') {
      const held = this.refresh.get(f.refresh_token ?? '');
      if (!held) return fail('invalid_grant');
      this.refresh.delete(f.refresh_token ?? '');
      return this.issue(held.login, held.scope, held.access);
    }
    const issued = this.codes.get(f.code ?? '');
    // A code is used once, by the client it was made for, for the redirect it was made with.
    this.codes.delete(f.code ?? '');
    if (!issued || (f.redirect_uri !== undefined && f.redirect_uri !== issued.redirectUri)) return fail('invalid_grant');
    if (
      issued.challenge !== undefined &&
      createHash('sha256')
        .update(f.code_verifier ?? '')
        .digest('base64url') !== issued.challenge
    )
      return fail('invalid_grant');
    return this.issue(issued.login, issued.scope);
  }

  private issue(login: string, scope: string, replaced?: string): OAuthAnswer {
    const access = rand(this.options.tokenPrefix);
    if (replaced) this.tokens.delete(replaced);
    this.tokens.set(access, login);
    this.options.onToken(access, login, replaced);
    this.onIssued?.();
    const expires = this.options.expiresInSeconds;
    if (expires === undefined) return { status: 200, body: { access_token: access, token_type: 'bearer', scope } };
    const refreshToken = rand('refresh-');
    this.refresh.set(refreshToken, { login, access, scope });
    return { status: 200, body: { access_token: access, token_type: 'bearer', scope, expires_in: expires, refresh_token: refreshToken } };
  }
}
