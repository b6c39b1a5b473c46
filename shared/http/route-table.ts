import type { z } from 'zod';
import type { HttpResponse, Route, RouteDeclaration, RouteRequest, RouteSpec } from './types';

/**
 * A function's routes as data, by name, matched in the order written: each entry says what
 * the route matches, who may call it and what it takes and answers, and nothing that needs a
 * running context. The OpenAPI document reads the tables; `bindRoutes` gives each entry its
 * handler.
 */
export type RouteTable = Record<string, RouteDeclaration & { spec: RouteSpec }>;

/** The body a route's handler receives: what the schema the router checks with gives, or nothing. */
export type InputOf<D extends RouteDeclaration> = D extends { rawBody: true }
  ? undefined
  : D extends { accepts: infer A extends z.ZodType }
    ? z.output<A>
    : D extends { spec: { body: infer B extends z.ZodType } }
      ? z.output<B>
      : undefined;

/** The handler of one declared route, its `input` typed by the route's declared body. */
export type RouteHandler<D extends RouteDeclaration> = (req: RouteRequest & { input: InputOf<D> }) => Promise<HttpResponse>;

/** A handler, or a handler with a refusal decided from the request head alone. */
export type RouteBinding<D extends RouteDeclaration> = RouteHandler<D> | { handle: RouteHandler<D>; refuseHead: Route['refuseHead'] };

/** One binding per entry of the table: a route left without a handler does not compile. */
export type RouteHandlers<T extends RouteTable> = { [K in keyof T]: RouteBinding<T[K]> };

/** The table's routes, in its order, each with its handler. */
export function bindRoutes<T extends RouteTable>(table: T, handlers: RouteHandlers<T>): Route[] {
  return Object.keys(table).map((name) => {
    const declaration = table[name] as T[keyof T];
    const binding = handlers[name as keyof T];
    // The router checked the body against the declared schema before `handle` runs: `input` is of the declared type.
    if (typeof binding === 'function') return { ...declaration, handle: binding as Route['handle'] };
    return { ...declaration, refuseHead: binding.refuseHead, handle: binding.handle as Route['handle'] };
  });
}
