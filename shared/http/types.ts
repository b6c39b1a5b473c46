import type { z } from 'zod';
import type { Caller } from '../domain/caller';
import type { AppError, ErrorCode } from '../domain/errors';

/**
 * A transport-neutral HTTP request/response, so the same route code serves the local
 * runtime (node:http) and Lambda function URLs (payload v2).
 */
export interface HttpRequest extends RequestHead {
  /** Raw body bytes (base64 already decoded). */
  body: Buffer;
}

/** What is known of a request before its body is read: enough to route, authenticate and size it. */
export interface RequestHead {
  method: string;
  /** Path without query string, e.g. `/connections/abc`. */
  path: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  query: URLSearchParams;
  /** The peer's address as the transport saw it (never a forwarded header), when known: for per-client throttles. */
  clientAddress?: string;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RouteRequest extends HttpRequest {
  params: Record<string, string>;
  /** Who called (routes with `auth` other than `none`): the platform, or a scoped key. */
  caller?: Caller;
  /**
   * The JSON body as the router checked it against the route's declared schema (`accepts`, else
   * `spec.body`); absent when the route declares no body or reads the raw bytes itself.
   */
  input?: unknown;
}

/**
 * A route as data: what it matches, who may call it, what it takes and answers. Read without
 * building anything (the OpenAPI document is generated from these); a handler is bound to it
 * at wiring time (shared/http/route-table.ts).
 */
export interface RouteDeclaration {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path pattern with `:name` segments, e.g. `/connections/:id`. */
  pattern: string;
  /**
   * `platform`: needs `Authorization: Bearer <PLATFORM_API_KEY>`; `scoped`: the platform key or
   * a scoped key (the handler limits it to the key's connections through `caller`); `none`: open.
   */
  auth: 'platform' | 'scoped' | 'none';
  /** Largest body accepted, in bytes (default `defaultMaxBodyBytes`, shared/http/body-limits.ts). */
  maxBodyBytes?: number;
  /** What the route takes and answers, for the OpenAPI document (shared/http/openapi.ts); every route has one. */
  spec?: RouteSpec;
  /**
   * The handler reads the raw body itself: a signature is checked over the exact bytes before
   * any parsing, or a protocol's own transport parses them. The router parses nothing and
   * `spec.body` only documents the body.
   */
  rawBody?: true;
  /**
   * What the router checks the body with when it must be looser than `spec.body`: the use case
   * behind the route checks the fields itself (all problems at once, in its own order).
   */
  accepts?: z.ZodType;
  /** How a body the router refuses is answered, when the route answers its errors in its own shape (`spec.errorBody`). */
  refuseBody?(error: AppError): HttpResponse;
}

/** A declared route with its handler bound. */
export interface Route extends RouteDeclaration {
  /** A refusal decided from the head alone, before any body byte is read (e.g. the webhook's required headers). */
  refuseHead?(req: RequestHead & { params: Record<string, string> }): HttpResponse | undefined;
  handle(req: RouteRequest): Promise<HttpResponse>;
}

/** One answer a route gives that is not an error of the common envelope. */
export interface AnswerSpec {
  description: string;
  /** The body's schema (output side); absent: no body worth describing (a redirect). */
  body?: z.ZodType;
  /** The media type of `body`, when not `application/json` (an HTML page, an event stream). */
  contentType?: string;
  /** More media types the same answer may come as, each with its schema (a page for a browser, JSON for others). */
  alternatives?: Record<string, z.ZodType>;
  /** Response headers worth naming, by name: what each carries. */
  headers?: Record<string, string>;
}

/**
 * A route described: the same zod schemas the handler validates with, so the document and
 * the checks cannot say different things. Errors are named by code: each answers the
 * common envelope `{error: {code, message, details?}}` with the status `statusByCode` gives.
 */
export interface RouteSpec {
  summary: string;
  description?: string;
  /** Groups in the document: `connections`, `tools` ... */
  tags: string[];
  /** The path parameters, one key per `:name` of the pattern. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the route reads, by lower-case name. */
  headers?: z.ZodObject;
  /** The JSON body, input side (what a caller may send). */
  body?: z.ZodType;
  /** The non-error answers by status. */
  answers: Record<number, AnswerSpec>;
  /**
   * The codes the handler itself may answer. Those the router adds are implied: `unauthorized`
   * and `forbidden` on keyed routes, `invalid_input` for a bad path segment, `payload_too_large`
   * and `nesting_too_deep` on routes that read a body, and `internal`, `unavailable` and
   * `answer_too_large` everywhere.
   */
  errors: ErrorCode[];
  /**
   * When this route answers its errors in another shape than the common envelope (a ToolResult),
   * that shape; the router's own refusals keep the envelope.
   */
  errorBody?: z.ZodType;
  /** Other media types the errors may come as, each with its schema (a page for a browser that asked for HTML). */
  errorAlternatives?: Record<string, z.ZodType>;
  /** Served by the local runtime only (console, sandbox, operator routes): left out of the document. */
  localOnly?: true;
}

/**
 * The router's decision from the request head alone: answer now (404, 405, 401, 400, 413),
 * without reading a byte of the body, or read at most `maxBodyBytes` and `run`.
 */
export type Admission =
  | { kind: 'answer'; response: HttpResponse }
  | { kind: 'read'; maxBodyBytes: number; run(body: Buffer): Promise<HttpResponse> };
