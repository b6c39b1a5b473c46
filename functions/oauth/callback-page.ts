import { prefersHtml } from '../../shared/http/html';
import type { HttpResponse } from '../../shared/http/types';
import { connectedPage, failedPage, type WayBack } from '../../shared/oauth/pages';

/**
 * The callback's answer when there is no `returnTo` to redirect to: a page for a person's
 * browser (it asked for HTML) naming the `service` connected, the JSON body for every other client.
 */
export function callbackPage(
  status: number,
  body: Record<string, unknown>,
  accept: string | undefined,
  headers: Record<string, string>,
  service: string,
  back?: WayBack,
): HttpResponse {
  if (!prefersHtml(accept)) {
    return { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
  }
  const error = body.error as { code: string; message: string } | undefined;
  if (error) return failedPage({ status, service, code: error.code, message: error.message, back }, headers);
  return connectedPage(
    { service, connectionId: String(body.connectionId), ...(typeof body.account === 'string' ? { account: body.account } : {}), back },
    headers,
  );
}
