import { createHmac } from 'node:crypto';
import type { TriggerEvent } from '../domain/model';

/** The exact body sent to the agent runtime, keys in the contract's order. */
export function eventBody(e: TriggerEvent): string {
  return JSON.stringify({
    id: e.id,
    trigger: e.trigger,
    subscriptionId: e.subscriptionId,
    agentId: e.agentId,
    connectionId: e.connectionId,
    deliveryId: e.deliveryId,
    occurredAt: e.occurredAt,
    event: e.event,
  });
}

/** `X-Signature-256` value: `sha256=` + hex HMAC-SHA256 of the body bytes. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
