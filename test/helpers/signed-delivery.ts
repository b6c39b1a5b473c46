import { createHmac, randomUUID } from 'node:crypto';
import examples from '@octokit/webhooks-examples';
import type { HttpRequest } from '../../shared/http/types';

/** A real example payload of the code host, by event and action (the first one found). */
export function examplePayload(event: string, action?: string): Record<string, unknown> {
  const def = examples.find((d) => d.name === event);
  const found = def?.examples.find((e) => action === undefined || (e as { action?: string }).action === action);
  if (!found) throw new Error(`no example for ${event}.${action}`);
  return structuredClone(found) as unknown as Record<string, unknown>;
}

export function sign(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface DeliveryOptions {
  endpointId: string;
  secret: string;
  event: string;
  body: string | Buffer;
  guid?: string;
  /** Overrides (undefined removes a header). */
  headers?: Record<string, string | undefined>;
}

/** A signed webhook delivery as the transport hands it to the router. */
export function deliveryRequest(o: DeliveryOptions): HttpRequest {
  const body = Buffer.isBuffer(o.body) ? o.body : Buffer.from(o.body, 'utf8');
  const headers: Record<string, string | undefined> = {
    'content-type': 'application/json',
    'x-github-event': o.event,
    'x-github-delivery': o.guid ?? randomUUID(),
    'x-hub-signature-256': sign(o.secret, body),
    ...o.headers,
  };
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  return { method: 'POST', path: `/webhooks/github/${o.endpointId}`, headers: clean, query: new URLSearchParams(), body };
}
