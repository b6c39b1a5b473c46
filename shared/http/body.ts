import { AppError } from '../domain/errors';
import { parseOrThrow } from '../domain/validation';
import type { RouteDeclaration } from './types';

/** The body as JSON; an empty body is `{}`, anything not JSON is the caller's mistake naming `(body)`. */
function parseJson(body: Buffer): unknown {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('invalid_input', 'Request body is not valid JSON', { fields: [{ field: '(body)', message: 'not valid JSON' }] });
  }
}

/**
 * The body a route declares, parsed and checked against its schema (`accepts`, else
 * `spec.body`), errors naming each bad field; `undefined` when the route declares none or
 * reads its raw bytes itself (`rawBody`).
 */
export function declaredInput(route: RouteDeclaration, body: Buffer): unknown {
  const schema = route.rawBody ? undefined : (route.accepts ?? route.spec?.body);
  if (!schema) return undefined;
  return parseOrThrow(schema, parseJson(body));
}
