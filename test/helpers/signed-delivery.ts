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

/** sha1 signature the code host still sends beside the sha256 one (`X-Hub-Signature`). */
export function signSha1(secret: string, body: string | Buffer): string {
  return `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;
}

/**
 * Every header the code host sends with a delivery, as its documentation lists them
 * (lower-case, as the transport hands them over): the intake reads three of them and must
 * not trip over the others.
 */
export function codeHostHeaders(o: {
  secret: string;
  event: string;
  body: string | Buffer;
  guid: string;
  hookId?: number;
  target?: { type: string; id: number };
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': o.event,
    'x-github-delivery': o.guid,
    'x-github-hook-id': String(o.hookId ?? 292430182),
    'x-github-hook-installation-target-type': o.target?.type ?? 'repository',
    'x-github-hook-installation-target-id': String(o.target?.id ?? 79929171),
    'x-hub-signature': signSha1(o.secret, o.body),
    'x-hub-signature-256': sign(o.secret, o.body),
  };
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
    ...codeHostHeaders({ secret: o.secret, event: o.event, body, guid: o.guid ?? randomUUID() }),
    ...o.headers,
  };
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) clean[k] = v;
  return { method: 'POST', path: `/webhooks/github/${o.endpointId}`, headers: clean, query: new URLSearchParams(), body };
}
