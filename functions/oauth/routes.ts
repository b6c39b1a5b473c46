import * as z from 'zod';
import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { jsonBody } from '../../shared/http/body';
import { json, toErrorResponse } from '../../shared/http/responses';
import type { HttpResponse, Route, RouteRequest } from '../../shared/http/types';
import { startAuthorization } from '../../shared/oauth/authorize';
import { callbackErrorCodes, handleCallback, type CallbackOutcome } from '../../shared/oauth/callback';
import { authorizeInputSchema } from '../../shared/oauth/authorize';
import { providers } from '../../shared/domain/model';
import { parseProvider } from '../../shared/oauth/providers';
import { clearBindingCookie, handleStart, type FlowSegment } from '../../shared/oauth/start';
import { prefersHtml } from '../../shared/http/html';
import { failedPage, type WayBack } from '../../shared/oauth/pages';
import type { Provider } from '../../shared/domain/model';
import { callbackPage } from './callback-page';
import { openApiRoute } from './openapi-route';
import { appAuthorizeInputSchema, handleAppStart, startAppAuthorization } from '../../shared/oauth/github-app-authorize';
import { appCallbackMessages, handleAppCallback } from '../../shared/providers/github/app/app-callback';

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

/** The start step's answer: on to the provider with the binding cookie, or the refusal (a page for a browser). */
async function startAnswer(
  ctx: AppContext,
  req: RouteRequest,
  options: OAuthRouteOptions,
  failure: string,
  provider: Provider | undefined,
  start: () => Promise<{ location: string; setCookie: string }>,
): Promise<HttpResponse> {
  try {
    const started = await start();
    return { status: 302, headers: { ...callbackHeaders, location: started.location, 'set-cookie': started.setCookie }, body: '' };
  } catch (e) {
    if (!(e instanceof AppError)) ctx.logger.error(failure, { error: e });
    return refusal(e, req.headers.accept, provider, options);
  }
}

/**
 * The callback's answer, as a redirect, page or JSON. The binding cookie of `flow` has done its
 * job whatever the outcome: the browser drops it.
 */
async function callbackAnswer(
  ctx: AppContext,
  req: RouteRequest,
  options: OAuthRouteOptions,
  how: { flow: FlowSegment; provider: Provider; failure: string },
  finish: () => Promise<CallbackOutcome>,
): Promise<HttpResponse> {
  const states = req.query.getAll('state');
  const clear: Record<string, string> =
    states.length === 1 && states[0] ? { 'set-cookie': clearBindingCookie(ctx.config.publicUrl, how.flow, states[0]) } : {};
  let answer: HttpResponse;
  try {
    answer = toResponse(await finish(), req.headers.accept, options);
  } catch (e) {
    if (!(e instanceof AppError)) ctx.logger.error(how.failure, { error: e });
    answer = refusal(e, req.headers.accept, how.provider, options);
  }
  return { ...answer, headers: { ...answer.headers, ...clear } };
}

const providerParam = z.object({ provider: z.enum(providers as [Provider, ...Provider[]]) });
const htmlPage = z.string().describe('An HTML page for a person (the browser asked for text/html)');
const notCached = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

function providerOf(name: string | undefined): Provider | undefined {
  return providers.find((p) => p === name);
}

/**
 * `POST /oauth/:provider/authorize` (platform key), `GET /oauth/:provider/start` (browser:
 * what authorizeUrl opens) and `GET /oauth/:provider/callback` (browser).
 */
export function routes(ctx: AppContext, options: OAuthRouteOptions = {}): Route[] {
  return [
    // The API's description sits with the other open routes: the platform API's package has no room for it.
    openApiRoute,
    ...appRoutes(ctx, options),
    {
      method: 'POST',
      pattern: '/oauth/:provider/authorize',
      auth: 'platform',
      spec: {
        summary: "Start connecting an account by OAuth: the URL a person's browser opens",
        description:
          'A fresh single-use state (PKCE on the provider side) is kept; `authorizeUrl` is our own `GET /oauth/{provider}/start`. `connectionId` reconnects an existing connection in place.',
        tags: ['oauth'],
        params: providerParam,
        body: authorizeInputSchema,
        answers: {
          200: {
            description: 'Where to send the browser, and until when the state holds',
            body: z.object({ authorizeUrl: z.string(), expiresAt: z.string().describe('ISO 8601 time') }),
          },
        },
        errors: ['invalid_input', 'not_found', 'connection_not_found', 'not_configured'],
      },
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
      spec: {
        summary: "The browser's first stop: bound to this browser by a cookie, then on to the provider",
        tags: ['oauth'],
        params: providerParam,
        query: z.object({ state: z.string().describe('The state from `authorizeUrl`') }),
        answers: {
          302: {
            description: "To the provider's authorize page",
            headers: { location: "The provider's authorize URL", 'set-cookie': 'The binding cookie of this flow', ...notCached },
          },
        },
        errors: ['invalid_input', 'not_found', 'not_configured'],
        errorAlternatives: { 'text/html': htmlPage },
      },
      handle: async (req) => {
        return startAnswer(ctx, req, options, 'oauth start failed', providerOf(req.params.provider), () =>
          handleStart(ctx, parseProvider(req.params.provider), req.query),
        );
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/:provider/callback',
      auth: 'none',
      spec: {
        summary: 'Where the provider sends the browser back: the code is exchanged and the connection saved',
        description:
          'With a `returnTo`, every outcome is a redirect there (`?connectionId=` or `?error=<code>`); without, a page for a browser or JSON for any other client.',
        tags: ['oauth'],
        params: providerParam,
        query: z.object({
          code: z.string().optional(),
          state: z.string(),
          error: z.string().optional().describe('Set by the provider when the person refused'),
        }),
        answers: {
          302: {
            description: 'To `returnTo`, with `connectionId` or `error`',
            headers: { location: '`returnTo` with the outcome', ...notCached },
          },
          200: {
            description: 'Connected (no returnTo)',
            body: z.object({
              provider: z.enum(providers as [Provider, ...Provider[]]),
              connectionId: z.string(),
              status: z.literal('connected'),
              account: z.string(),
            }),
            alternatives: { 'text/html': htmlPage },
          },
        },
        errors: ['invalid_input', 'not_found', 'connection_not_found', 'conflict', 'not_configured', 'upstream_error'],
        errorBody: z.object({
          provider: z.enum(providers as [Provider, ...Provider[]]),
          error: z.object({ code: z.enum(callbackErrorCodes as [string, ...string[]]), message: z.string() }),
        }),
        errorAlternatives: { 'text/html': htmlPage },
      },
      handle: async (req) => {
        const provider = parseProvider(req.params.provider);
        return callbackAnswer(ctx, req, options, { flow: provider, provider, failure: 'oauth callback failed' }, () =>
          handleCallback(ctx, provider, req.query, req.headers.cookie),
        );
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
      spec: {
        summary: "Start connecting through the GitHub App: the URL a person's browser opens",
        description:
          "`mode: install` (the default without `installationId`) goes on to the App's installation page; `existing` (or an `installationId`) authorizes the user for an installation the App already has. A fresh single-use state (10 minutes); `authorizeUrl` is our own `GET /oauth/github-app/start`.",
        tags: ['oauth'],
        body: appAuthorizeInputSchema,
        answers: {
          200: {
            description: 'Where to send the browser, and until when the state holds',
            body: z.object({ authorizeUrl: z.string(), expiresAt: z.string().describe('ISO 8601 time') }),
          },
        },
        errors: ['invalid_input', 'not_configured'],
      },
      handle: async (req) => {
        const answer = json(200, await startAppAuthorization(ctx, jsonBody(req, z.unknown())));
        return { ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } };
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/github-app/start',
      auth: 'none',
      spec: {
        summary: "The browser's first stop of the App flow: bound to this browser by a cookie, then on to GitHub",
        tags: ['oauth'],
        query: z.object({ state: z.string().describe('The state from `authorizeUrl`') }),
        answers: {
          302: {
            description: "To the App's installation page, or to the user authorization for an existing installation",
            headers: { location: 'The GitHub URL', 'set-cookie': 'The binding cookie of this flow', ...notCached },
          },
        },
        errors: ['invalid_input', 'not_found', 'not_configured'],
        errorAlternatives: { 'text/html': htmlPage },
      },
      handle: async (req) => {
        return startAnswer(ctx, req, options, 'github app start failed', 'github', () => handleAppStart(ctx, req.query));
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/github-app/callback',
      auth: 'none',
      spec: {
        summary: "The App's setup and callback URL: the installation is checked against the user's own token and the connection saved",
        description:
          "The `installation_id` is accepted only when the user's token lists it among `GET /user/installations`. With a `returnTo`, every outcome is a redirect there (`?connectionId=` or `?error=<code>`, and `installations=<id>:<login>,...` for `installation_choice_required`); without, a page for a browser or JSON for any other client.",
        tags: ['oauth'],
        query: z.object({
          state: z.string(),
          code: z.string().optional().describe("The user's authorization code"),
          installation_id: z.string().optional(),
          setup_action: z.string().optional().describe('`install`, `update` or `request`'),
          error: z.string().optional().describe('Set by GitHub when the person refused'),
        }),
        answers: {
          302: {
            description: 'To `returnTo`, with `connectionId` or `error`',
            headers: { location: '`returnTo` with the outcome', ...notCached },
          },
          200: {
            description: 'Connected (no returnTo)',
            body: z.object({
              provider: z.literal('github'),
              connectionId: z.string(),
              status: z.literal('connected'),
              account: z.string(),
            }),
            alternatives: { 'text/html': htmlPage },
          },
        },
        errors: ['invalid_input', 'not_found', 'conflict', 'forbidden', 'not_configured', 'upstream_error'],
        errorBody: z.object({
          provider: z.literal('github'),
          error: z.object({
            code: z.enum(Object.keys(appCallbackMessages) as [string, ...string[]]),
            message: z.string(),
            installations: z.string().optional(),
          }),
        }),
        errorAlternatives: { 'text/html': htmlPage },
      },
      handle: async (req) => {
        return callbackAnswer(ctx, req, options, { flow: 'github-app', provider: 'github', failure: 'github app callback failed' }, () =>
          handleAppCallback(ctx, req.query, req.headers.cookie),
        );
      },
    },
  ];
}
