import type { Caller } from '../domain/caller';

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
}

export interface Route {
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
  /** A refusal decided from the head alone, before any body byte is read (e.g. the webhook's required headers). */
  refuseHead?(req: RequestHead & { params: Record<string, string> }): HttpResponse | undefined;
  handle(req: RouteRequest): Promise<HttpResponse>;
}

/**
 * The router's decision from the request head alone: answer now (404, 405, 401, 400, 413),
 * without reading a byte of the body, or read at most `maxBodyBytes` and `run`.
 */
export type Admission =
  | { kind: 'answer'; response: HttpResponse }
  | { kind: 'read'; maxBodyBytes: number; run(body: Buffer): Promise<HttpResponse> };
