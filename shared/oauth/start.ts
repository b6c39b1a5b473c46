import type { AppContext } from '../ports/app-context';
import { AppError, InvalidInputError } from '../domain/errors';
import type { Provider } from '../domain/model';
import { providerAuthorizeUrl } from './authorize';
import { randomUrlToken, sha256Base64url, stateHash } from './pkce';
import { clientCredentials } from './providers';
import { bindState, readState, type OAuthStateRecord } from './state-store';

/**
 * Browser binding of an OAuth flow (docs/security.md, section 6). `POST /oauth/{provider}/authorize`
 * is called by the platform's back end, so it cannot set a cookie in the person's browser;
 * the `authorizeUrl` it answers is our own `GET /oauth/{provider}/start?state=...`, which
 * the browser opens: it sets a random binding value as an HttpOnly, SameSite=Lax cookie
 * (Secure on https), records the value's hash with the state (once: a second opening is
 * refused) and redirects to the provider. The callback proceeds only for the browser that
 * carries the cookie: a callback URL (code and state) replayed or planted in another
 * browser is refused before the code is exchanged.
 */

/** One cookie per flow, so two flows in two tabs do not overwrite each other. */
export function bindingCookieName(state: string): string {
  return `oauth_bind_${stateHash(state).slice(0, 16)}`;
}

export function bindingHash(value: string): string {
  return sha256Base64url(`oauth-binding:${value}`);
}

/** The path segment of a flow's routes: a provider's OAuth, or the GitHub App's connect flow. */
export type FlowSegment = Provider | 'github-app';

/** Path of the cookie: the flow's routes under PUBLIC_URL (which may have a path). */
function cookiePath(publicUrl: string, flow: FlowSegment): string {
  return `${new URL(publicUrl).pathname.replace(/\/+$/, '')}/oauth/${flow}`;
}

export function bindingCookie(publicUrl: string, flow: FlowSegment, name: string, value: string, maxAgeSeconds: number): string {
  const secure = new URL(publicUrl).protocol === 'https:' ? '; Secure' : '';
  return `${name}=${value}; Path=${cookiePath(publicUrl, flow)}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/** The value of cookie `name` in a `Cookie` header, if present exactly once. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  const values = (header ?? '')
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p.startsWith(`${name}=`))
    .map((p) => p.slice(name.length + 1));
  return values.length === 1 && values[0] ? values[0] : undefined;
}

export interface StartOutcome {
  location: string;
  setCookie: string;
}

/** `GET /oauth/{provider}/start?state=`: binds the flow to this browser, then on to the provider. */
export async function handleStart(ctx: AppContext, provider: Provider, query: URLSearchParams): Promise<StartOutcome> {
  const states = query.getAll('state');
  if (states.length !== 1 || !states[0])
    throw new InvalidInputError([{ field: 'state', message: states.length > 1 ? 'given more than once' : 'missing' }]);
  const state = states[0];
  const record = await readState(ctx.store, ctx.clock, state);
  // A GitHub App flow's state starts at its own route only.
  if (!record || record.provider !== provider || record.app !== undefined)
    throw new AppError('invalid_input', 'Unknown, expired or already used state; start the connection again');
  const { clientId } = await clientCredentials(ctx, provider);
  return bindAndGo(ctx, provider, state, record, providerAuthorizeUrl(ctx.config, ctx.providers[provider].oauth, clientId, state, record));
}

/** Binds the state to this browser (once), and sends the browser on to `location` with the binding cookie. */
export async function bindAndGo(
  ctx: AppContext,
  flow: FlowSegment,
  state: string,
  record: OAuthStateRecord,
  location: string,
): Promise<StartOutcome> {
  const value = randomUrlToken();
  if (!(await bindState(ctx.store, ctx.clock, state, bindingHash(value)))) {
    throw new AppError('invalid_input', 'This authorization link was already opened; start the connection again');
  }
  const maxAge = Math.max(1, Math.ceil((record.expiresAt - ctx.clock.now()) / 1000));
  ctx.logger.info('oauth authorization bound to a browser', { provider: flow });
  return { location, setCookie: bindingCookie(ctx.config.publicUrl, flow, bindingCookieName(state), value, maxAge) };
}

/** The Set-Cookie that removes a flow's binding cookie once the callback has used it. */
export function clearBindingCookie(publicUrl: string, flow: FlowSegment, state: string): string {
  return bindingCookie(publicUrl, flow, bindingCookieName(state), '', 0);
}
