import * as z from 'zod';
import { json } from '../../shared/http/responses';
import type { HttpResponse, RouteDeclaration, RouteSpec } from '../../shared/http/types';

/**
 * `GET /openapi.json`: the document generated from every route's spec at build time
 * (`npm run openapi` writes docs/openapi.json; a test keeps it current), so no function
 * converts schemas at run time. Served by the OAuth function (the open routes) and loaded on
 * first use, so other routes' cold starts skip it.
 */
export const openApiRouteDeclaration = {
  method: 'GET',
  pattern: '/openapi.json',
  auth: 'none',
  spec: {
    summary: 'This document',
    description: 'The OpenAPI 3.1 document of every route, the error envelope, the auth schemes and the trigger event (as a webhook).',
    tags: ['meta'],
    answers: { 200: { description: 'The OpenAPI document', body: z.record(z.string(), z.unknown()) } },
    errors: [],
  },
} satisfies RouteDeclaration & { spec: RouteSpec };

/** The committed document, as `GET /openapi.json` serves it. */
export async function serveOpenApiDocument(): Promise<HttpResponse> {
  const { default: document } = await import('../../docs/openapi.json');
  return json(200, document);
}
