import * as z from 'zod';
import { AppError } from '../../domain/errors';
import type { Connection } from '../../domain/model';
import type { ContentSnareClient } from './client';
import { parseAnswer, recordId } from './schemas';

/**
 * The partner API's webhook endpoints (its reference, "Webhooks"): `POST /webhooks` to
 * register, `PUT /webhooks/{id}` to change (the reference marks `url` required on update,
 * so it is always sent), `DELETE /webhooks/{id}` to remove. All need the `administration`
 * scope, and in the service only an Admin may manage webhooks: a refusal says which.
 */

/** The scope the partner API's webhook endpoints need. */
export const webhookScope = 'administration';

const webhookRecord = z.looseObject({ id: recordId });

export interface WebhookSpec {
  url: string;
  /** Event names (the reference's `subscriptions`). */
  events: readonly string[];
}

/** What to grant, said before anything is asked when the connection's scopes are known to lack it. */
export function assertWebhookScope(connection: Connection): void {
  if (connection.scopes === undefined || connection.scopes.includes(webhookScope)) return;
  throw missingGrant(connection, `it was granted ${connection.scopes.join(' ') || 'no scopes'}`);
}

function missingGrant(connection: Connection, why: string): AppError {
  return new AppError(
    'forbidden',
    `Content Snare webhooks need the \`${webhookScope}\` scope and an Admin user, and this connection cannot manage them (${why}). ` +
      `Reconnect it as an Admin of the Content Snare account with the extra scope: POST /oauth/contentsnare/authorize {"connectionId": "${connection.id}", "scopes": ["${webhookScope}"]}, then open the authorizeUrl`,
    { missingScope: webhookScope, needsRole: 'admin', fix: 'reconnect', connectionId: connection.id },
  );
}

/** A 401/403 on a webhook endpoint: the scope or the user's role (the service says no more). */
async function orMissingGrant<T>(connection: Connection, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof AppError && (e.code === 'forbidden' || e.code === 'reconnect_required')) {
      const status = (e.details as { status?: number } | undefined)?.status;
      throw missingGrant(connection, `the service answered ${status ?? e.code} to a webhook call`);
    }
    throw e;
  }
}

export async function createWebhook(client: ContentSnareClient, connection: Connection, spec: WebhookSpec): Promise<string> {
  return orMissingGrant(connection, async () => {
    const res = await client.request({
      method: 'POST',
      endpoint: '/webhooks',
      body: { url: spec.url, enabled: true, subscriptions: [...spec.events] },
    });
    return String(parseAnswer(webhookRecord, res.data, 'POST /webhooks').id);
  });
}

/** Changes the hook; false when the service no longer has it (404), so that the caller registers a new one. */
export async function updateWebhook(client: ContentSnareClient, connection: Connection, id: string, spec: WebhookSpec): Promise<boolean> {
  return orMissingGrant(connection, async () => {
    try {
      await client.request({
        method: 'PUT',
        endpoint: `/webhooks/${encodeURIComponent(id)}`,
        body: { url: spec.url, enabled: true, subscriptions: [...spec.events] },
      });
      return true;
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') return false;
      throw e;
    }
  });
}

/** Removes the hook; one already gone (404) counts as removed. */
export async function deleteWebhook(client: ContentSnareClient, connection: Connection, id: string): Promise<void> {
  await orMissingGrant(connection, async () => {
    try {
      await client.request({ method: 'DELETE', endpoint: `/webhooks/${encodeURIComponent(id)}` });
    } catch (e) {
      if (!(e instanceof AppError && e.code === 'not_found')) throw e;
    }
  });
}
