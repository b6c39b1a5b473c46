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
    // Only a replay carries it, so every other body is exactly the contract's.
    ...(e.replayOf !== undefined ? { replayOf: e.replayOf } : {}),
  });
}

/** `X-Signature-256` value: `sha256=` + hex HMAC-SHA256 of the body bytes. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * `X-Signature-256-Timestamped` value: `sha256=` + hex HMAC-SHA256 of `<timestamp>.<body>`,
 * where `timestamp` is the `X-Signature-Timestamp` header (unix seconds). Binding the time
 * into the signature lets an agent runtime refuse a captured request replayed later
 * (`X-Signature-256` alone signs only the body, so it stays valid forever).
 */
export function signTimestamped(secret: string, timestamp: number, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/**
 * The signature headers of one POST: `X-Signature-256` exactly as the contract says, plus
 * the timestamp and the timestamped signature. Computed at each attempt, so a retry after
 * backoff carries a fresh time and is not refused as stale.
 */
export function signatureHeaders(secret: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'x-signature-256': signBody(secret, body),
    'x-signature-timestamp': String(timestamp),
    'x-signature-256-timestamped': signTimestamped(secret, timestamp, body),
  };
}
