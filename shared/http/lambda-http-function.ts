import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Caller } from '../domain/caller';
import type { Logger } from '../observability/logger';
import { fromLambdaEvent, toLambdaResult } from './lambda-http';
import { createRouter, type Router } from './router';
import type { Route } from './types';

/** What an HTTP function needs of its context: the platform key its router checks, and a logger for failures. */
export interface HttpFunctionContext {
  platformApiKey: () => Promise<string>;
  logger: Logger;
}

export interface HttpFunctionSpec<C extends HttpFunctionContext> {
  /** The role's context (its deps.ts), built once per container. */
  context: () => Promise<C>;
  routes: (ctx: C) => Route[];
  /** Resolves a scoped key (roles whose routes take one: `auth: 'scoped'`). */
  scopedKey?: (ctx: C, token: string) => Promise<Caller | undefined>;
  /** Log message of a request that failed unexpectedly (not an AppError). */
  failure: string;
}

/**
 * A Lambda HTTP function (function URL or HTTP API, payload v2 events): the role's routes
 * behind the shared router, built on the first request from the role's context and kept for
 * the container's life. The local runtime serves the same routes through node-http.ts.
 */
export function lambdaHttpFunction<C extends HttpFunctionContext>(
  spec: HttpFunctionSpec<C>,
): (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2> {
  let router: Router | undefined;
  return async (event) => {
    const ctx = await spec.context();
    router ??= createRouter(spec.routes(ctx), {
      platformApiKey: ctx.platformApiKey,
      ...(spec.scopedKey ? { scopedKey: (token: string) => spec.scopedKey?.(ctx, token) ?? Promise.resolve(undefined) } : {}),
      onError: (e, req) => ctx.logger.error(spec.failure, { method: req.method, path: req.path, error: e }),
    });
    return toLambdaResult(await router(fromLambdaEvent(event)));
  };
}
