import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import type { RouteTable } from '../../shared/http/route-table';
import * as z from 'zod';

const deliveryAnswer = z.object({
  ok: z.literal(true),
  accepted: z.number().int().optional().describe('Trigger events queued'),
  duplicate: z.literal(true).optional().describe('The same delivery again, or the same signed body under another id'),
  ping: z.literal(true).optional().describe("The code host's ping: the endpoint is verified"),
});

/** A collection-service delivery: queued for its read-back, or nothing any subscribed trigger takes. */
const snareAnswer = z.object({
  ok: z.literal(true),
  queued: z.literal(true).optional().describe('Accepted: its records are read back from the dispatch queue, within the rate limit'),
  accepted: z.literal(0).optional().describe('Nothing any subscribed trigger takes, or the body does not name what its event needs'),
});

/** What a GitHub App lifecycle delivery (`installation`, `installation_repositories`, `github_app_authorization`) did. */
const lifecycleAnswer = z.object({
  ok: z.literal(true),
  queued: z
    .literal(true)
    .describe('An installation lifecycle event, claimed and queued: the dispatch consumer reads it back and applies it'),
});

const deliveryHeaders = z.object({
  'x-hub-signature-256': z.string().describe('`sha256=` + hex HMAC-SHA256 of the body'),
  'x-github-event': z.string(),
  'x-github-delivery': z.string(),
});

/**
 * `POST /webhooks/github/app` (the GitHub App's one webhook) and `POST /webhooks/github/{endpointId}`
 * (the hooks the product made): the code host's deliveries (no platform key; the signature is the auth).
 * The App's route comes first: `app` is no endpoint id.
 * `POST /webhooks/contentsnare/{connectionId}/{token}`: the collection service's (the URL's token is the auth).
 * Each reads its raw body: the signature or token is checked before any byte is parsed.
 * Handlers: functions/webhook-intake/routes.ts.
 */
export const intakeRouteTable = {
  appDelivery: {
    method: 'POST',
    pattern: '/webhooks/github/app',
    auth: 'none',
    maxBodyBytes: lambdaMaxBodyBytes,
    rawBody: true,
    spec: {
      summary: "The GitHub App's webhook",
      description:
        "Every installation's deliveries, authenticated by the signature made with GITHUB_APP_WEBHOOK_SECRET over the raw body bytes, routed by `installation.id` to the subscriptions of that installation's connections. Installation lifecycle events (`installation`, `installation_repositories`, `github_app_authorization`) keep the connections' state and allow-lists: each signed body is claimed once and queued (202 `queued`), and the dispatch consumer applies it, `deleted`/`suspend`/`unsuspend` only when the installation read back from GitHub agrees, and repositories added only to the allow-lists of users who can access them. 404 when no App is configured. Answers within 8 s.",
      tags: ['webhooks'],
      headers: deliveryHeaders,
      body: z.record(z.string(), z.unknown()).describe("The code host's event payload, with `installation`"),
      answers: {
        202: {
          description: 'Accepted: `accepted` trigger events queued, or a lifecycle event queued',
          body: z.union([deliveryAnswer, lifecycleAnswer]),
        },
        200: { description: 'A duplicate, a ping, or nothing any trigger takes', body: deliveryAnswer },
      },
      errors: ['invalid_input', 'invalid_signature', 'not_found', 'unavailable'],
    },
  },
  hookDelivery: {
    method: 'POST',
    pattern: '/webhooks/github/:endpointId',
    auth: 'none',
    maxBodyBytes: lambdaMaxBodyBytes,
    rawBody: true,
    spec: {
      summary: "The code host's webhook deliveries",
      description:
        "Called by the code host, authenticated by the delivery's signature (made with the endpoint's secret) over the raw body bytes. Answers within 8 s.",
      tags: ['webhooks'],
      params: z.object({ endpointId: z.string().describe('`ep_...`, in the hook URL the product registered') }),
      headers: deliveryHeaders,
      body: z.record(z.string(), z.unknown()).describe("The code host's event payload"),
      answers: {
        202: { description: 'Accepted: `accepted` trigger events queued', body: deliveryAnswer },
        200: { description: 'A duplicate, a ping, or nothing any trigger takes (`accepted: 0`)', body: deliveryAnswer },
      },
      errors: ['invalid_input', 'invalid_signature', 'not_found', 'unavailable'],
    },
  },
  snareDelivery: {
    method: 'POST',
    pattern: '/webhooks/contentsnare/:connectionId/:token',
    auth: 'none',
    maxBodyBytes: lambdaMaxBodyBytes,
    rawBody: true,
    spec: {
      summary: "The collection service's webhook deliveries",
      description:
        "Called by the collection service at the URL the product registered for the connection. Its deliveries are unsigned and carry no id: the URL's per-connection token is checked in constant time (a wrong one is 404), then the delivery is put on the dispatch queue (202) before any record is read: the service documents no redelivery. The record the body names is read back from the queue, within the account's rate limit, before anything is dispatched; the event carries what the API reports, and a record that cannot be read back or does not bear the event out dispatches nothing. 503 only when the queue did not take the delivery. Answers within 8 s.",
      tags: ['webhooks'],
      params: z.object({
        connectionId: z.string().describe('`conn_...`, the collection-service connection'),
        token: z.string().describe('The per-connection token in the registered URL'),
      }),
      body: z.record(z.string(), z.unknown()).describe("The collection service's event payload"),
      answers: {
        202: { description: 'Accepted (`queued`): its records are read back from the queue', body: snareAnswer },
        200: { description: 'Nothing any subscribed trigger takes (`accepted: 0`)', body: snareAnswer },
      },
      errors: ['invalid_input', 'not_found', 'reconnect_required', 'unavailable'],
    },
  },
} satisfies RouteTable;
