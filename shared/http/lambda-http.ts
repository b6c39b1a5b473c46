import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { withSafetyHeaders } from './responses';
import type { HttpRequest, HttpResponse } from './types';

/**
 * Function URL / HTTP API (payload v2) event -> HttpRequest. Header names are lower-cased,
 * missing headers and bodies are tolerated, and base64 bodies are decoded before anyone
 * (the signature check above all) sees them.
 */
export function fromLambdaEvent(event: APIGatewayProxyEventV2): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  // Payload v2 passes the request's cookies beside the headers (the OAuth browser binding reads them).
  if (event.cookies?.length) headers.cookie = event.cookies.join('; ');
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  return {
    method: event.requestContext?.http?.method ?? 'GET',
    path: event.rawPath ?? '/',
    headers,
    query: new URLSearchParams(event.rawQueryString ?? ''),
    body,
  };
}

export function toLambdaResult(answer: HttpResponse): APIGatewayProxyStructuredResultV2 {
  const res = withSafetyHeaders(answer);
  const body = res.body ?? '';
  // Payload v2 takes Set-Cookie in `cookies`, not among the headers.
  const { 'set-cookie': setCookie, ...headers } = res.headers ?? {};
  const cookies = setCookie === undefined ? {} : { cookies: [setCookie] };
  const base = { statusCode: res.status, ...(res.headers === undefined ? {} : { headers }), ...cookies };
  return Buffer.isBuffer(body) ? { ...base, body: body.toString('base64'), isBase64Encoded: true } : { ...base, body };
}
