import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { toErrorResponse } from '../../shared/http/responses';
import type { HttpResponse, RouteRequest } from '../../shared/http/types';
import type { CallbackOutcome } from '../../shared/oauth/callback';
import { clearBindingCookie, type FlowSegment } from '../../shared/oauth/start';
import { prefersHtml } from '../../shared/http/html';
import { failedPage, type WayBack } from '../../shared/oauth/pages';
import type { Provider } from '../../shared/domain/model';
import { callbackPage } from './callback-page';

/**
 * The callback's answers carry or follow a URL with a code: never cache them, and never
 * send the callback URL on as a Referer from whatever page comes next.
 */
export const callbackHeaders = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

export interface OAuthRouteOptions {
  /** Where a person's browser may go back to when the flow has no `returnTo` (the local console). */
  consoleUrl?: string;
}

function wayBack(options: OAuthRouteOptions): WayBack | undefined {
  return options.consoleUrl ? { href: options.consoleUrl, label: 'Back to the console' } : undefined;
}

/** The name a page gives the provider: its OAuth definition's. */
function serviceOf(ctx: AppContext, provider: Provider | undefined): string | undefined {
  return provider === undefined ? undefined : ctx.providers[provider].oauth.displayName;
}

function toResponse(outcome: CallbackOutcome, accept: string | undefined, service: string, options: OAuthRouteOptions): HttpResponse {
  if (outcome.kind === 'redirect') return { status: 302, headers: { ...callbackHeaders, location: outcome.location }, body: '' };
  return callbackPage(outcome.status, outcome.body, accept, callbackHeaders, service, wayBack(options));
}

/**
 * A refused start or callback (unknown, expired, reused or foreign state: no returnTo can be
 * trusted): a page for a browser that asked for HTML, the JSON error for every other client.
 */
export function refusal(e: unknown, accept: string | undefined, service: string | undefined, options: OAuthRouteOptions): HttpResponse {
  const answer = toErrorResponse(e);
  if (!prefersHtml(accept)) return { ...answer, headers: { ...answer.headers, ...callbackHeaders } };
  const error = e instanceof AppError ? e : new AppError('internal', 'Connecting failed; try again');
  return failedPage({ status: answer.status, service, code: error.code, message: error.message, back: wayBack(options) }, callbackHeaders);
}

/** The start step's answer: on to the provider with the binding cookie, or the refusal (a page for a browser). */
export async function startAnswer(
  ctx: AppContext,
  req: RouteRequest,
  options: OAuthRouteOptions,
  failure: string,
  provider: Provider | undefined,
  start: () => Promise<{ location: string; setCookie: string }>,
): Promise<HttpResponse> {
  try {
    const started = await start();
    return { status: 302, headers: { ...callbackHeaders, location: started.location, 'set-cookie': started.setCookie }, body: '' };
  } catch (e) {
    if (!(e instanceof AppError)) ctx.logger.error(failure, { error: e });
    return refusal(e, req.headers.accept, serviceOf(ctx, provider), options);
  }
}

/**
 * The callback's answer, as a redirect, page or JSON. The binding cookie of `flow` has done its
 * job whatever the outcome: the browser drops it.
 */
export async function callbackAnswer(
  ctx: AppContext,
  req: RouteRequest,
  options: OAuthRouteOptions,
  how: { flow: FlowSegment; provider: Provider; failure: string },
  finish: () => Promise<CallbackOutcome>,
): Promise<HttpResponse> {
  const states = req.query.getAll('state');
  const clear: Record<string, string> =
    states.length === 1 && states[0] ? { 'set-cookie': clearBindingCookie(ctx.config.publicUrl, how.flow, states[0]) } : {};
  let answer: HttpResponse;
  try {
    answer = toResponse(await finish(), req.headers.accept, ctx.providers[how.provider].oauth.displayName, options);
  } catch (e) {
    if (!(e instanceof AppError)) ctx.logger.error(how.failure, { error: e });
    answer = refusal(e, req.headers.accept, serviceOf(ctx, how.provider), options);
  }
  return { ...answer, headers: { ...answer.headers, ...clear } };
}
