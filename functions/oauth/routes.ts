import * as z from 'zod';
import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { jsonBody } from '../../shared/http/body';
import { json, toErrorResponse } from '../../shared/http/responses';
import type { HttpResponse, Route } from '../../shared/http/types';
import { startAuthorization } from '../../shared/oauth/authorize';
import { handleCallback, type CallbackOutcome } from '../../shared/oauth/callback';
import { parseProvider } from '../../shared/oauth/providers';
import { clearBindingCookie, handleStart } from '../../shared/oauth/start';
import { prefersHtml } from '../../shared/http/html';
import { failedPage, type WayBack } from '../../shared/oauth/pages';
import type { Provider } from '../../shared/domain/model';
import { callbackPage } from './callback-page';
import { handleAppStart, startAppAuthorization } from '../../shared/oauth/github-app-authorize';
import { handleAppCallback } from '../../shared/github/app/app-callback';

/**
 * The callback's answers carry or follow a URL with a code: never cache them, and never
 * send the callback URL on as a Referer from whatever page comes next.
 */
const callbackHeaders = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

export interface OAuthRouteOptions {
  /** Where a person's browser may go back to when the flow has no `returnTo` (the local console). */
  consoleUrl?: string;
}

function wayBack(options: OAuthRouteOptions): WayBack | undefined {
  return options.consoleUrl ? { href: options.consoleUrl, label: 'Back to the console' } : undefined;
}

function toResponse(outcome: CallbackOutcome, accept: string | undefined, options: OAuthRouteOptions): HttpResponse {
  if (outcome.kind === 'redirect') return { status: 302, headers: { ...callbackHeaders, location: outcome.location }, body: '' };
  return callbackPage(outcome.status, outcome.body, accept, callbackHeaders, wayBack(options));
}

/**
 * A refused start or callback (unknown, expired, reused or foreign state: no returnTo can be
 * trusted): a page for a browser that asked for HTML, the JSON error for every other client.
 */
function refusal(e: unknown, accept: string | undefined, provider: Provider | undefined, options: OAuthRouteOptions): HttpResponse {
  const answer = toErrorResponse(e);
  if (!prefersHtml(accept)) return { ...answer, headers: { ...answer.headers, ...callbackHeaders } };
  const error = e instanceof AppError ? e : new AppError('internal', 'Connecting failed; try again');
  return failedPage({ status: answer.status, provider, code: error.code, message: error.message, back: wayBack(options) }, callbackHeaders);
}

function providerOf(name: string | undefined): Provider | undefined {
  return name === 'github' || name === 'contentsnare' ? name : undefined;
}

/**
 * `POST /oauth/:provider/authorize` (platform key), `GET /oauth/:provider/start` (browser:
 * what authorizeUrl opens) and `GET /oauth/:provider/callback` (browser).
 */
export function routes(ctx: AppContext, options: OAuthRouteOptions = {}): Route[] {
  return [
    ...appRoutes(ctx, options),
    {
      method: 'POST',
      pattern: '/oauth/:provider/authorize',
      auth: 'platform',
      handle: async (req) => {
        const answer = json(200, await startAuthorization(ctx, parseProvider(req.params.provider), jsonBody(req, z.unknown())));
        // The URL carries a live state: keep it out of caches.
        return { ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } };
      },
    },
    {
      // The browser opens authorizeUrl here: bound to this browser by a cookie, then on to the provider.
      method: 'GET',
      pattern: '/oauth/:provider/start',
      auth: 'none',
      handle: async (req) => {
        try {
          const started = await handleStart(ctx, parseProvider(req.params.provider), req.query);
          return { status: 302, headers: { ...callbackHeaders, location: started.location, 'set-cookie': started.setCookie }, body: '' };
        } catch (e) {
          if (!(e instanceof AppError)) ctx.logger.error('oauth start failed', { error: e });
          return refusal(e, req.headers.accept, providerOf(req.params.provider), options);
        }
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/:provider/callback',
      auth: 'none',
      handle: async (req) => {
        const provider = parseProvider(req.params.provider);
        const states = req.query.getAll('state');
        // The binding cookie has done its job whatever the outcome: the browser drops it.
        const clear: Record<string, string> =
          states.length === 1 && states[0] ? { 'set-cookie': clearBindingCookie(ctx.config.publicUrl, provider, states[0]) } : {};
        try {
          const answer = toResponse(await handleCallback(ctx, provider, req.query, req.headers.cookie), req.headers.accept, options);
          return { ...answer, headers: { ...answer.headers, ...clear } };
        } catch (e) {
          if (!(e instanceof AppError)) ctx.logger.error('oauth callback failed', { error: e });
          const answer = refusal(e, req.headers.accept, provider, options);
          return { ...answer, headers: { ...answer.headers, ...clear } };
        }
      },
    },
  ];
}

/**
 * The GitHub App's connect flow, before the providers' routes so `github-app` is never read as
 * a provider: `POST /oauth/github-app/authorize` (platform key), `GET /oauth/github-app/start`
 * and `GET /oauth/github-app/callback` (browser), answering as the OAuth routes do.
 */
function appRoutes(ctx: AppContext, options: OAuthRouteOptions): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/oauth/github-app/authorize',
      auth: 'platform',
      handle: async (req) => {
        const answer = json(200, await startAppAuthorization(ctx, jsonBody(req, z.unknown())));
        return { ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } };
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/github-app/start',
      auth: 'none',
      handle: async (req) => {
        try {
          const started = await handleAppStart(ctx, req.query);
          return { status: 302, headers: { ...callbackHeaders, location: started.location, 'set-cookie': started.setCookie }, body: '' };
        } catch (e) {
          if (!(e instanceof AppError)) ctx.logger.error('github app start failed', { error: e });
          return refusal(e, req.headers.accept, 'github', options);
        }
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/github-app/callback',
      auth: 'none',
      handle: async (req) => {
        const states = req.query.getAll('state');
        const clear: Record<string, string> =
          states.length === 1 && states[0] ? { 'set-cookie': clearBindingCookie(ctx.config.publicUrl, 'github-app', states[0]) } : {};
        try {
          const answer = toResponse(await handleAppCallback(ctx, req.query, req.headers.cookie), req.headers.accept, options);
          return { ...answer, headers: { ...answer.headers, ...clear } };
        } catch (e) {
          if (!(e instanceof AppError)) ctx.logger.error('github app callback failed', { error: e });
          const answer = refusal(e, req.headers.accept, 'github', options);
          return { ...answer, headers: { ...answer.headers, ...clear } };
        }
      },
    },
  ];
}
