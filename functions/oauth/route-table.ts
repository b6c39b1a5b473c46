import * as z from 'zod';
import type { RouteTable } from '../../shared/http/route-table';
import type { RouteSpec } from '../../shared/http/types';
import { callbackErrorCodes } from '../../shared/oauth/callback';
import { authorizeInputSchema } from '../../shared/oauth/authorize';
import { providers, type Provider } from '../../shared/domain/model';
import { appAuthorizeInputSchema } from '../../shared/providers/github/app/app-authorize';
import { appCallbackMessages } from '../../shared/providers/github/app/app-callback';
import { openApiRouteDeclaration } from './openapi-route';
import { connectRouteTable } from '../../shared/connect/route-table';
import { manifestInputSchema } from '../../shared/providers/github/app/manifest/manifest-flow';

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

/** A browser's first stop in a flow (`GET …/start?state=`): bound to the browser by a cookie, then redirected on. */
function browserFirstStop(stop: {
  pattern: string;
  summary: string;
  to: string;
  location: string;
  params?: RouteSpec['params'];
}): RouteTable[string] {
  return {
    method: 'GET',
    pattern: stop.pattern,
    auth: 'none',
    spec: {
      summary: stop.summary,
      tags: ['oauth'],
      ...(stop.params ? { params: stop.params } : {}),
      query: z.object({ state: z.string().describe('The state from `authorizeUrl`') }),
      answers: {
        302: {
          description: stop.to,
          headers: { location: stop.location, 'set-cookie': 'The binding cookie of this flow', ...notCached },
        },
      },
      errors: ['invalid_input', 'not_found', 'not_configured'],
      errorAlternatives: { 'text/html': htmlPage },
    },
  };
}

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
  appStart: browserFirstStop({
    pattern: '/oauth/github-app/start',
    summary: "The browser's first stop of the App flow: bound to this browser by a cookie, then on to GitHub",
    to: "To the App's installation page, or to the user authorization for an existing installation",
    location: 'The GitHub URL',
  }),
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
 * The GitHub App made in one step, by GitHub's App manifest flow: `POST /github-app/manifest`
 * (platform key) answers the URL of our page that posts the manifest to GitHub; GitHub sends the
 * browser back to the callback with a code, traded for the App, which is kept where the runtime
 * reads its settings. Handlers: functions/oauth/routes.ts.
 */
const manifestRouteTable = {
  appManifest: {
    method: 'POST',
    pattern: '/github-app/manifest',
    auth: 'platform',
    accepts: manifestInputSchema,
    spec: {
      summary: 'Make the GitHub App in one step: the URL a person opens to create it on GitHub',
      description:
        "The manifest carries the permissions and events the product's tool steps and triggers declare, the App's webhook (`/webhooks/github/app`), its user authorization's callback (`/oauth/github-app/callback`, asked during installation) and the way back here. A fresh single-use state (10 minutes); `url` is our own `GET /github-app/manifest/start`. 409 `conflict` while an App is configured, unless `replace`.",
      tags: ['oauth'],
      body: manifestInputSchema,
      answers: {
        200: {
          description: 'Where to send the browser, and until when the state holds',
          body: z.object({ url: z.string(), expiresAt: z.string().describe('ISO 8601 time') }),
        },
      },
      errors: ['invalid_input', 'conflict', 'not_configured'],
    },
  },
  appManifestStart: {
    method: 'GET',
    pattern: '/github-app/manifest/start',
    auth: 'none',
    spec: {
      summary: 'The page that posts the manifest to GitHub from the browser (once per state)',
      tags: ['oauth'],
      query: z.object({ state: z.string().describe('The state from `url`') }),
      answers: {
        200: {
          description: "A form posting `manifest` to GitHub's new App page (`/settings/apps/new` or the organization's), submitted at once",
          alternatives: { 'text/html': htmlPage },
          headers: notCached,
        },
      },
      errors: ['invalid_input'],
      errorAlternatives: { 'text/html': htmlPage },
    },
  },
  appManifestCallback: {
    method: 'GET',
    pattern: '/github-app/manifest/callback',
    auth: 'none',
    spec: {
      summary: "The manifest's `redirect_url`: GitHub's code traded for the App, kept where the runtime reads it",
      description:
        "The state is taken first (single use); then `POST /app-manifests/{code}/conversions` (bounded, no redirect followed), its answer checked field by field; the id, slug, client id and secret, private key and webhook secret are kept (the data directory locally, in use at once; on AWS the three secrets in the stack's secrets, and the page names the deploy settings to set). Never answers a secret.",
      tags: ['oauth'],
      query: z.object({ state: z.string(), code: z.string().optional().describe("GitHub's one-hour code") }),
      answers: {
        200: {
          description: 'The App made',
          body: z.object({
            appId: z.string(),
            slug: z.string(),
            htmlUrl: z.string().optional(),
            owner: z.string().optional(),
            kept: z.union([
              z.object({ inUse: z.literal(true) }),
              z.object({ inUse: z.literal(false), settings: z.record(z.string(), z.string()), nextStep: z.string() }),
            ]),
          }),
          headers: notCached,
          alternatives: { 'text/html': htmlPage },
        },
      },
      errors: ['invalid_input', 'not_configured', 'upstream_error', 'unavailable'],
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
  // The browser opens authorizeUrl here: bound to this browser by a cookie, then on to the provider.
  start: browserFirstStop({
    pattern: '/oauth/:provider/start',
    summary: "The browser's first stop: bound to this browser by a cookie, then on to the provider",
    to: "To the provider's authorize page",
    location: "The provider's authorize URL",
    params: providerParam,
  }),
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
