import * as z from 'zod';
import type { RouteTable } from '../../shared/http/route-table';
import { callbackErrorCodes } from '../../shared/oauth/callback';
import { authorizeInputSchema } from '../../shared/oauth/authorize';
import { providers, type Provider } from '../../shared/domain/model';
import { appAuthorizeInputSchema } from '../../shared/providers/github/app/app-authorize';
import { appCallbackMessages } from '../../shared/providers/github/app/app-callback';
import { openApiRouteDeclaration } from './openapi-route';
import { connectRouteTable } from '../../shared/connect/route-table';
import { manifestRouteTable } from './manifest-route-table';

const providerParam = z.object({ provider: z.enum(providers as [Provider, ...Provider[]]) });
const htmlPage = z.string().describe('An HTML page for a person (the browser asked for text/html)');
const notCached = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
/**
 * What the router checks an authorize body with: JSON, nothing more. Configuration comes first
 * (an unconfigured provider is `not_configured` whatever the body), then the use case checks
 * the fields against the declared schema.
 */
const configurationFirst = z.unknown();
const authorizeAnswer = z.object({ authorizeUrl: z.string(), expiresAt: z.string().describe('ISO 8601 time') });

/**
 * The GitHub App's connect flow, before the providers' routes so `github-app` is never read as
 * a provider: `POST /oauth/github-app/authorize` (platform key), `GET /oauth/github-app/start`
 * and `GET /oauth/github-app/callback` (browser), answering as the OAuth routes do.
 */
const appRouteTable = {
  appAuthorize: {
    method: 'POST',
    pattern: '/oauth/github-app/authorize',
    auth: 'platform',
    accepts: configurationFirst,
    spec: {
      summary: "Start connecting through the GitHub App: the URL a person's browser opens",
      description:
        "`mode: install` (the default without `installationId`) goes on to the App's installation page; `existing` (or an `installationId`) authorizes the user for an installation the App already has. A fresh single-use state (10 minutes); `authorizeUrl` is our own `GET /oauth/github-app/start`.",
      tags: ['oauth'],
      body: appAuthorizeInputSchema,
      answers: { 200: { description: 'Where to send the browser, and until when the state holds', body: authorizeAnswer } },
      errors: ['invalid_input', 'not_configured'],
    },
  },
  appStart: {
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
  },
  appCallback: {
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
  },
} satisfies RouteTable;

/**
 * The OAuth function's routes: `GET /openapi.json`, the GitHub App's flow, then
 * `POST /oauth/:provider/authorize` (platform key), `GET /oauth/:provider/start` (browser:
 * what authorizeUrl opens) and `GET /oauth/:provider/callback` (browser). Handlers:
 * functions/oauth/routes.ts.
 */
export const oauthRouteTable = {
  // The API's description sits with the other open routes: the platform API's package has no room for it.
  openApi: openApiRouteDeclaration,
  ...connectRouteTable,
  ...appRouteTable,
  ...manifestRouteTable,
  authorize: {
    method: 'POST',
    pattern: '/oauth/:provider/authorize',
    auth: 'platform',
    accepts: configurationFirst,
    spec: {
      summary: "Start connecting an account by OAuth: the URL a person's browser opens",
      description:
        'A fresh single-use state (PKCE on the provider side) is kept; `authorizeUrl` is our own `GET /oauth/{provider}/start`. `connectionId` reconnects an existing connection in place.',
      tags: ['oauth'],
      params: providerParam,
      body: authorizeInputSchema,
      answers: { 200: { description: 'Where to send the browser, and until when the state holds', body: authorizeAnswer } },
      errors: ['invalid_input', 'not_found', 'connection_not_found', 'not_configured'],
    },
  },
  start: {
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
  },
  callback: {
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
  },
} satisfies RouteTable;
