import * as z from 'zod';
import { errorCodes, type ErrorCode } from '../domain/errors';
import { apiComponents } from '../domain/model-schemas';
import { statusByCode } from './responses';
import type { AnswerSpec, RouteDeclaration, RouteSpec } from './types';

/** A JSON Schema or any part of the document: plain JSON. */
type Json = Record<string, unknown>;

/** What the document says of itself and of the event the product sends (the routes say the rest). */
export interface DocumentParts {
  title: string;
  version: string;
  description: string;
  /** OpenAPI `webhooks`: requests the product makes to others (the trigger event). */
  webhooks?: Json;
  /** Named schemas the webhooks refer to as `#/components/schemas/<name>`. */
  schemas?: Record<string, z.ZodType>;
  /** OpenAPI `servers`: where the API is served. */
  servers?: Json[];
  /** Security schemes the webhooks name beside the platform's keys (the trigger event's signature). */
  securitySchemes?: Record<string, Json>;
}

/** Named schemas met while converting, by id: they become `components.schemas`. */
type Components = Map<string, Json>;

/**
 * zod's own conversion. A schema registered in `apiComponents` comes out as a `$ref` to
 * `components.schemas/<id>`, its definition kept once in `components`.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): Json {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', metadata: apiComponents }) as Json;
  const relinked = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  const { $schema: _dialect, $defs, ...rest } = relinked;
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
    const known = components.get(id);
    if (known && JSON.stringify(known) !== JSON.stringify(definition))
      throw new Error(`Schema ${id} comes out two ways (input and output?)`);
    components.set(id, definition);
  }
  return rest;
}

/** `/connections/:id` -> `/connections/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `GET /connections/:id` -> `getConnectionsId`: stable, unique per method and path. */
function operationId(route: RouteDeclaration): string {
  const words = route.pattern
    .split(/[/:{}._-]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1));
  return route.method.toLowerCase() + (words.join('') || 'Root');
}

/** The common error envelope, its `code` narrowed to `codes`. */
export function errorEnvelope(codes: readonly ErrorCode[]): Json {
  return {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', enum: [...codes] },
          message: { type: 'string' },
          details: {
            type: 'object',
            description:
              'More on the cause. For `invalid_input`: `fields`, one `{field, message}` per bad field (dotted paths: `filters.branch`, `input.owner`).',
            properties: {
              fields: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['field', 'message'],
                  properties: { field: { type: 'string' }, message: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    },
  };
}

/** The codes the router itself may answer on this route, besides those the handler names. */
function impliedCodes(route: RouteDeclaration): ErrorCode[] {
  // Every route may meet a bug, the edge's limit of bodies in flight, or an answer too large to send.
  const codes: ErrorCode[] = ['internal', 'unavailable', 'answer_too_large'];
  if (route.auth !== 'none') codes.push('unauthorized', 'forbidden');
  if (route.pattern.includes(':')) codes.push('invalid_input');
  if (route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH') codes.push('payload_too_large', 'nesting_too_deep');
  return codes;
}

function parameters(where: 'path' | 'query' | 'header', object: z.ZodObject | undefined, components: Components): Json[] {
  if (!object) return [];
  const schema = jsonSchema(object, 'input', components);
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function answer(spec: AnswerSpec, components: Components): Json {
  const content: Record<string, Json> = {};
  if (spec.body) content[spec.contentType ?? 'application/json'] = { schema: jsonSchema(spec.body, 'output', components) };
  for (const [type, schema] of Object.entries(spec.alternatives ?? {}))
    content[type] = { schema: jsonSchema(schema, 'output', components) };
  return {
    description: spec.description,
    ...(spec.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(spec.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
          ),
        }
      : {}),
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}

function operation(route: RouteDeclaration, spec: RouteSpec, components: Components): Json {
  const responses: Record<string, Json> = {};
  for (const [status, a] of Object.entries(spec.answers)) responses[status] = answer(a, components);
  const codes = [...new Set([...spec.errors, ...impliedCodes(route)])].sort((a, b) => errorCodes.indexOf(a) - errorCodes.indexOf(b));
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(statusByCode[code], [...(byStatus.get(statusByCode[code]) ?? []), code]);
  const errorShape = spec.errorBody ? jsonSchema(spec.errorBody, 'output', components) : undefined;
  for (const [status, those] of [...byStatus].sort(([a], [b]) => a - b)) {
    if (responses[String(status)]) throw new Error(`${route.method} ${route.pattern}: status ${status} is both an answer and an error`);
    const envelope = {
      allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error: { properties: { code: { enum: those } } } } }],
    };
    responses[String(status)] = {
      description: those.map((c) => `\`${c}\``).join(', '),
      // errorResponse (responses.ts) says when to come back, when the error's details know it.
      ...(status === 429
        ? {
            headers: {
              'Retry-After': {
                description: 'Seconds until the next try is allowed, when known (also `details.retryAfter`)',
                schema: { type: 'string' },
              },
            },
          }
        : {}),
      content: {
        'application/json': { schema: errorShape ? { anyOf: [envelope, errorShape] } : envelope },
        ...Object.fromEntries(
          Object.entries(spec.errorAlternatives ?? {}).map(([type, schema]) => [
            type,
            { schema: jsonSchema(schema, 'output', components) },
          ]),
        ),
      },
    };
  }
  const security =
    route.auth === 'none' ? [] : route.auth === 'platform' ? [{ platformKey: [] }] : [{ platformKey: [] }, { scopedKey: [] }];
  return {
    operationId: operationId(route),
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security,
    ...(spec.params || spec.query || spec.headers
      ? {
          parameters: [
            ...parameters('path', spec.params, components),
            ...parameters('query', spec.query, components),
            ...parameters('header', spec.headers, components),
          ],
        }
      : {}),
    ...(spec.body
      ? { requestBody: { required: false, content: { 'application/json': { schema: jsonSchema(spec.body, 'input', components) } } } }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of `routes`: every route with a `spec` that is not local-only,
 * its schemas generated by zod's own `z.toJSONSchema` from the schemas the handlers check
 * with. Throws for a route without a spec: an undocumented route is a mistake, not an omission.
 */
export function openApiDocument(routes: readonly RouteDeclaration[], parts: DocumentParts): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const components: Components = new Map();
  for (const route of routes) {
    if (!route.spec) throw new Error(`${route.method} ${route.pattern} has no spec`);
    if (route.spec.localOnly) continue;
    const path = openApiPath(route.pattern);
    const item = paths[path] ?? {};
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${route.method} ${route.pattern} is routed twice`);
    item[method] = operation(route, route.spec, components);
    paths[path] = item;
  }
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  const named = Object.entries(parts.schemas ?? {}).map(([name, schema]) => [name, jsonSchema(schema, 'output', components)] as const);
  for (const [name, schema] of named) if (!components.has(name)) components.set(name, schema);
  return {
    openapi: '3.1.0',
    info: { title: parts.title, version: parts.version, description: parts.description },
    ...(parts.servers ? { servers: parts.servers } : {}),
    paths: sorted,
    ...(parts.webhooks ? { webhooks: parts.webhooks } : {}),
    components: {
      securitySchemes: {
        platformKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The platform key (`PLATFORM_API_KEY`; during a rotation `<new>,<old>` and both work). Opens every route.',
        },
        scopedKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A scoped key from `POST /keys`: opens only the routes that take it, limited to the connections it lists (another connection is `403 forbidden`).',
        },
        ...parts.securitySchemes,
      },
      schemas: {
        Error: errorEnvelope(errorCodes),
        ...Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b))),
      },
    },
  };
}

/**
 * The spec of a route only the local runtime serves (the console, the sandbox's inbox, the
 * operator routes behind `npm run dlq` and `npm run trigger`): named, and left out of the document.
 */
export function localOnlySpec(summary: string): RouteSpec;
/** The same, for a route that takes a JSON body: the router checks it with `body`. */
export function localOnlySpec<B extends z.ZodType>(summary: string, body: B): RouteSpec & { body: B };
export function localOnlySpec(summary: string, body?: z.ZodType): RouteSpec {
  return { summary, tags: ['local'], ...(body ? { body } : {}), answers: {}, errors: [], localOnly: true };
}
