import { isPlatformKey } from '../config/platform-keys';
import { bearerToken } from './bearer';
import { platformCaller, type Caller } from '../domain/caller';
import { AppError } from '../domain/errors';
import { declaredInput } from './body';
import { defaultMaxBodyBytes } from './body-limits';
import { jsonDepth, maxAnswerBytes, maxJsonDepth } from './json-shape';
import { errorResponse, toErrorResponse } from './responses';
import type { Admission, HttpRequest, HttpResponse, RequestHead, Route } from './types';

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { route, regex: new RegExp(`^${source}/?$`), names };
}

const unauthorized = () => new AppError('unauthorized', 'Missing or wrong bearer key (Authorization: Bearer <PLATFORM_API_KEY>)');

export interface RouterOptions {
  /** Returns the platform API key (`<new>,<old>` during a rotation); resolved lazily so AWS can read it from Secrets Manager. */
  platformApiKey: () => Promise<string>;
  /**
   * The caller a bearer token that is not the platform key stands for, when it is a live
   * scoped key (shared/keys/scoped-keys.ts); absent: only the platform key opens anything.
   */
  scopedKey?: (token: string) => Promise<Caller | undefined>;
  /** Called for every unexpected (non-AppError) failure. */
  onError?: (e: unknown, req: HttpRequest) => void;
}

/** Longest path parameter: every one is an id or a name of ours, and becomes part of a store key (2 KB at most). */
export const maxPathParamLength = 256;

/** A path parameter as text; a malformed percent-encoding or an oversize id is the caller's mistake (400), not ours (500). */
function decodeParams(names: string[], m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    const bad = (message: string) =>
      new AppError('invalid_input', `Path segment ${name}: ${message}`, { fields: [{ field: `path.${name}`, message }] });
    let value: string;
    try {
      value = decodeURIComponent(m[i + 1] ?? '');
    } catch {
      throw bad('not valid percent-encoding');
    }
    if (value.length > maxPathParamLength) throw bad(`longer than ${maxPathParamLength} characters`);
    params[name] = value;
  });
  return params;
}

/**
 * A body nested past `maxJsonDepth` is refused before any route parses it: parsing and
 * validating recurse, and 20,000 levels (120 KB) would otherwise end in a stack overflow.
 */
function tooDeep(body: Buffer): HttpResponse | undefined {
  if (jsonDepth(body, maxJsonDepth) <= maxJsonDepth) return undefined;
  return errorResponse(
    new AppError('nesting_too_deep', `Body nests objects and arrays deeper than ${maxJsonDepth} levels`, {
      limit: maxJsonDepth,
      fields: [{ field: '(body)', message: `nested deeper than ${maxJsonDepth} levels` }],
    }),
  );
}

/** An answer too large to send (Lambda refuses over 6 MB) becomes a clear error instead. */
function bounded(response: HttpResponse): HttpResponse {
  const size = response.body === undefined ? 0 : Buffer.byteLength(response.body);
  if (size <= maxAnswerBytes) return response;
  return errorResponse(
    new AppError('answer_too_large', `The answer (${size} bytes) exceeds the ${maxAnswerBytes} bytes an answer may carry: ask for less`, {
      limit: maxAnswerBytes,
    }),
  );
}

function tooLarge(limit: number): HttpResponse {
  return errorResponse(new AppError('payload_too_large', `Body exceeds ${limit} bytes`, { limit }));
}

/** The declared body size, when there is one (`Content-Length` is digits only; anything else is not a size). */
function declaredLength(headers: Record<string, string>): number | undefined {
  const raw = headers['content-length'];
  return raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}

export interface Router {
  /** A whole request (body already read: the Lambda path, tests). */
  (req: HttpRequest): Promise<HttpResponse>;
  /**
   * Route, key and declared size decided from the head alone, so that an unknown route, a
   * missing key or an oversized `Content-Length` is answered before any body byte is read
   * (node-http.ts reads only on `kind: 'read'`, and at most `maxBodyBytes`).
   */
  admit(head: RequestHead): Promise<Admission>;
}

/**
 * Matches method + path, checks the platform key where needed, parses and checks the body
 * against the route's declared schema, maps errors in one place.
 */
export function createRouter(routes: Route[], options: RouterOptions): Router {
  const compiled = routes.map(compile);
  const fail = (e: unknown, head: RequestHead): HttpResponse => {
    if (!(e instanceof AppError)) options.onError?.(e, { ...head, body: Buffer.alloc(0) });
    return toErrorResponse(e);
  };
  const answer = (response: HttpResponse): Admission => ({ kind: 'answer', response });

  /**
   * The platform key opens every route; a scoped key opens only `scoped` routes (tools, /mcp,
   * its connections' subscriptions) and is refused with 403 elsewhere; anything else is 401.
   */
  async function authenticate(route: Route, head: RequestHead): Promise<Caller> {
    const given = bearerToken(head.headers.authorization);
    if (given === undefined) throw unauthorized();
    if (isPlatformKey(given, await options.platformApiKey())) return platformCaller;
    const scoped = options.scopedKey ? await options.scopedKey(given) : undefined;
    if (!scoped) throw unauthorized();
    if (route.auth !== 'scoped') {
      throw new AppError('forbidden', `A scoped key cannot use ${head.method.toUpperCase()} ${route.pattern}: it needs the platform key`);
    }
    return scoped;
  }

  async function admit(head: RequestHead): Promise<Admission> {
    let pathMatched = false;
    for (const c of compiled) {
      const m = c.regex.exec(head.path);
      if (!m) continue;
      pathMatched = true;
      if (c.route.method !== head.method.toUpperCase()) continue;
      try {
        const caller = c.route.auth === 'none' ? undefined : await authenticate(c.route, head);
        const params = decodeParams(c.names, m);
        const refused = c.route.refuseHead?.({ ...head, params });
        if (refused) return answer(refused);
        const limit = c.route.maxBodyBytes ?? defaultMaxBodyBytes;
        if ((declaredLength(head.headers) ?? 0) > limit) return answer(tooLarge(limit));
        const route = c.route;
        return {
          kind: 'read',
          maxBodyBytes: limit,
          run: async (body) => {
            const deep = tooDeep(body);
            if (deep) return deep;
            let input: unknown;
            try {
              input = declaredInput(route, body);
            } catch (e) {
              return route.refuseBody && e instanceof AppError ? route.refuseBody(e) : fail(e, head);
            }
            try {
              return bounded(
                await route.handle({ ...head, body, params, ...(caller ? { caller } : {}), ...(input === undefined ? {} : { input }) }),
              );
            } catch (e) {
              return fail(e, head);
            }
          },
        };
      } catch (e) {
        return answer(fail(e, head));
      }
    }
    return answer(
      pathMatched
        ? errorResponse(new AppError('not_found', `Method ${head.method} not allowed on ${head.path}`, { status: 405 }))
        : errorResponse(new AppError('not_found', `No route for ${head.method} ${head.path}`)),
    );
  }

  async function handle(req: HttpRequest): Promise<HttpResponse> {
    const admission = await admit(req);
    if (admission.kind === 'answer') return admission.response;
    if (req.body.length > admission.maxBodyBytes) return tooLarge(admission.maxBodyBytes);
    return admission.run(req.body);
  }
  return Object.assign(handle, { admit });
}
