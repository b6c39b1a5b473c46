import * as z from 'zod';
import type { RouteTable } from '../../shared/http/route-table';
import { manifestInputSchema } from '../../shared/providers/github/app/manifest/manifest-flow';

const htmlPage = z.string().describe('An HTML page for a person (the browser asked for text/html)');
const notCached = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/**
 * The GitHub App made in one step, by GitHub's App manifest flow: `POST /github-app/manifest`
 * (platform key) answers the URL of our page that posts the manifest to GitHub; GitHub sends the
 * browser back to the callback with a code, traded for the App, which is kept where the runtime
 * reads its settings. Handlers: functions/oauth/routes.ts.
 */
export const manifestRouteTable = {
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
          body: htmlPage,
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
