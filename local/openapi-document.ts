import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { triggerEventSchema } from '../shared/domain/model-schemas';
import { openApiDocument } from '../shared/http/openapi';
import type { RouteDeclaration } from '../shared/http/types';
import { localRouteDeclarations } from './routes';

/** Where the generated document is kept: served by `GET /openapi.json` and read without running anything. */
export const openApiDocumentPath = join(import.meta.dirname, '..', 'docs', 'openapi.json');

/**
 * Every route the local runtime serves, as declared: the same tables `npm start` binds
 * (local/routes.ts), so a route added there is described or the build says which has no spec.
 */
export function describedRoutes(): RouteDeclaration[] {
  return [...localRouteDeclarations];
}

const description = [
  'The HTTP API of the agent integrations: connections to the code host (GitHub) and the collection service (Content Snare), subscriptions of agents to triggers, tool steps (plain HTTP and MCP), scoped keys, OAuth, and the webhook intake.',
  '',
  '**Auth.** Every route except the webhook intake, the OAuth browser steps, `/healthz` and this document needs `Authorization: Bearer <key>`: the platform key, or where a route says so a scoped key (limited to its connections). A missing or wrong key is `401 unauthorized`; a scoped key on a platform-only route, or on another connection, is `403 forbidden`.',
  '',
  '**Errors** are `{"error": {"code", "message", "details"?}}` (`#/components/schemas/Error`); for bad input `details.fields` lists `{field, message}` per bad field. The HTTP status follows the code. An unknown path is `404 not_found`; a known path with another method is `404 not_found` with `details.status: 405`. `POST /tools/{toolId}/invoke` answers its own errors as the ToolResult `{ok: false, error}`.',
  '',
  '**Bodies** are JSON, at most 256 KB (6 MB on the tool invoke, MCP and the webhook intake): more is `413 payload_too_large`. Every answer carries `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`.',
  '',
  '**The trigger event** the product POSTs to the agent runtime is described under `webhooks`.',
].join('\n');

const signatureHeader = (name: string, text: string) => ({
  name,
  in: 'header',
  required: true,
  description: text,
  schema: { type: 'string' },
});

/** The event sent to `AGENT_RUNTIME_URL`: a request the product makes, so an OpenAPI webhook. */
const webhooks = {
  triggerEvent: {
    post: {
      summary: 'A trigger event, POSTed to AGENT_RUNTIME_URL',
      description:
        'One POST per (subscription, occurrence), 10 s timeout, no redirect followed. Verify `X-Signature-256` (or, to refuse replays, `X-Signature-256-Timestamped` and a timestamp within 5 minutes) over the raw body bytes with a timing-safe comparison, then drop duplicates by `id`. Any 2xx takes the event; anything else is retried with backoff (5 s × 2^n, at most 15 minutes; `429`, or `503` with `Retry-After`, after the wait asked for), and after the 5th receive the event goes to the dead-letter queue.',
      operationId: 'triggerEvent',
      tags: ['webhooks'],
      // The agent runtime authenticates the product by the body's signature; the key is DISPATCH_SIGNING_SECRET.
      security: [{ triggerEventSignature: [] }],
      parameters: [
        signatureHeader('X-Signature-256', '`sha256=` + hex HMAC-SHA256 of the body bytes, keyed with DISPATCH_SIGNING_SECRET'),
        signatureHeader('X-Signature-Timestamp', 'The time of this attempt, unix seconds'),
        signatureHeader('X-Signature-256-Timestamped', '`sha256=` + hex HMAC-SHA256 of `<X-Signature-Timestamp>.<body>`'),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/TriggerEvent' } } } },
      responses: {
        '2XX': { description: 'Taken: not sent again' },
        '429': { description: 'Sent again after `Retry-After`, never counted towards the dead letter' },
        default: { description: 'Retried with backoff, then dead-lettered' },
      },
    },
  },
};

/** Where the API is: the local runtime on its default port, or the stack's `PublicUrl` on AWS. */
const servers = [
  {
    url: 'http://127.0.0.1:3000',
    description: "The local runtime (`npm start`; another port with PORT). On AWS the same paths are under the stack's `PublicUrl` output.",
  },
];

/** The OpenAPI 3.1 document of the product's API, as `npm run openapi` writes it. */
export function buildOpenApiDocument(routes: readonly RouteDeclaration[] = describedRoutes()): Record<string, unknown> {
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as { version: string };
  return openApiDocument(routes, {
    title: 'Agent integrations',
    version: pkg.version,
    description,
    webhooks,
    schemas: { TriggerEvent: triggerEventSchema },
    servers,
    securitySchemes: {
      triggerEventSignature: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Signature-256',
        description:
          'On the trigger event the product sends: `sha256=` + hex HMAC-SHA256 of the raw body bytes, keyed with DISPATCH_SIGNING_SECRET (shared with the agent runtime, never sent). Not a key to compare: recompute it over the body and compare in constant time; `X-Signature-256-Timestamped` with `X-Signature-Timestamp` does the same over `<timestamp>.<body>` to refuse replays.',
      },
    },
  });
}

/** The document as the file holds it: two-space JSON and a final newline. */
export function openApiDocumentText(routes?: readonly RouteDeclaration[]): string {
  return `${JSON.stringify(buildOpenApiDocument(routes), null, 2)}\n`;
}
