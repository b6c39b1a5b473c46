import { refusal, type DeliveryHeaders as PipelineHeaders, type Verdict } from '../../../intake/intake-source';

/** What the intake needs from the code host's headers (names lower-case, as normalised by the transport). */
export interface DeliveryHeaders {
  event: string;
  deliveryId: string;
  signature: string;
}

export type HeaderCheck =
  | { ok: true; headers: DeliveryHeaders }
  | { ok: false; status: 400 | 401; code: 'invalid_input' | 'invalid_signature'; message: string };

/**
 * The code host's event names are lower-case words joined by `_` and may hold digits
 * (`projects_v2_item`); its OpenAPI description spells a few with `-` (`project-v2-item`).
 * Only the shape is checked here: an unknown name is answered 2xx and maps to nothing.
 */
const eventName = /^[a-z][a-z0-9_-]{0,63}$/;
/** GitHub sends a GUID; redeliveries keep it. Anything key-safe and short is accepted. */
const deliveryIdFormat = /^[A-Za-z0-9-]{1,100}$/;

/**
 * Checks the required headers as one list. A missing signature is 401 (the request is not
 * authenticated), the others 400 naming the header.
 */
export function checkDeliveryHeaders(headers: Record<string, string | undefined>): HeaderCheck {
  const event = headers['x-github-event']?.trim();
  const deliveryId = headers['x-github-delivery']?.trim();
  const signature = headers['x-hub-signature-256']?.trim();
  if (!event) return { ok: false, status: 400, code: 'invalid_input', message: 'Missing header X-GitHub-Event' };
  if (!eventName.test(event))
    return { ok: false, status: 400, code: 'invalid_input', message: 'Header X-GitHub-Event is not an event name' };
  if (!deliveryId) return { ok: false, status: 400, code: 'invalid_input', message: 'Missing header X-GitHub-Delivery' };
  if (!deliveryIdFormat.test(deliveryId))
    return { ok: false, status: 400, code: 'invalid_input', message: 'Header X-GitHub-Delivery is not a delivery id' };
  if (!signature) return { ok: false, status: 401, code: 'invalid_signature', message: 'Missing header X-Hub-Signature-256' };
  return { ok: true, headers: { event, deliveryId, signature } };
}

/** The `webhook_refused` reason a failed header check is counted under. */
export function headerRefusalReason(check: { code: 'invalid_input' | 'invalid_signature' }): 'missing_signature' | 'bad_headers' {
  return check.code === 'invalid_signature' ? 'missing_signature' : 'bad_headers';
}

/** The code host's headers as the intake pipeline's verifiers take them (the hook and the App sources alike). */
export function codeHostHeaders(raw: Record<string, string | undefined>): Verdict<PipelineHeaders> {
  const checked = checkDeliveryHeaders(raw);
  if (checked.ok) return { ok: true, value: checked.headers };
  return { ok: false, refusal: refusal(headerRefusalReason(checked), checked.status, checked.code, checked.message) };
}
