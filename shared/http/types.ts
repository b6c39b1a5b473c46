/**
 * A transport-neutral HTTP request/response, so the same route code serves the local
 * runtime (node:http) and Lambda function URLs (payload v2).
 */
export interface HttpRequest {
  method: string;
  /** Path without query string, e.g. `/connections/abc`. */
  path: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  query: URLSearchParams;
  /** Raw body bytes (base64 already decoded). */
  body: Buffer;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RouteRequest extends HttpRequest {
  params: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path pattern with `:name` segments, e.g. `/connections/:id`. */
  pattern: string;
  /** `platform`: needs `Authorization: Bearer <PLATFORM_API_KEY>`. */
  auth: 'platform' | 'none';
  handle(req: RouteRequest): Promise<HttpResponse>;
}
