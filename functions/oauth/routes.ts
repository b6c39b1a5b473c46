import * as z from 'zod';
import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { jsonBody } from '../../shared/http/body';
import { json, toErrorResponse } from '../../shared/http/responses';
import type { HttpResponse, Route } from '../../shared/http/types';
import { startAuthorization } from '../../shared/oauth/authorize';
import { handleCallback, type CallbackOutcome } from '../../shared/oauth/callback';
import { parseProvider } from '../../shared/oauth/providers';
import { clearBindingCookie, handleStart } from '../../shared/oauth/start';
import { callbackPage } from './callback-page';

/**
 * The callback's answers carry or follow a URL with a code: never cache them, and never
 * send the callback URL on as a Referer from whatever page comes next.
 */
const callbackHeaders = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

function toResponse(outcome: CallbackOutcome, accept: string | undefined): HttpResponse {
  if (outcome.kind === 'redirect') return { status: 302, headers: { ...callbackHeaders, location: outcome.location }, body: '' };
  return callbackPage(outcome.status, outcome.body, accept, callbackHeaders);
}

/**
 * `POST /oauth/:provider/authorize` (platform key), `GET /oauth/:provider/start` (browser:
 * what authorizeUrl opens) and `GET /oauth/:provider/callback` (browser).
 */
export function routes(ctx: AppContext): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/oauth/:provider/authorize',
      auth: 'platform',
      handle: async (req) => {
        const answer = json(200, await startAuthorization(ctx, parseProvider(req.params.provider), jsonBody(req, z.unknown())));
        // The URL carries a live state: keep it out of caches.
        return { ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } };
      },
    },
    {
      // The browser opens authorizeUrl here: bound to this browser by a cookie, then on to the provider.
      method: 'GET',
      pattern: '/oauth/:provider/start',
      auth: 'none',
      handle: async (req) => {
        try {
          const started = await handleStart(ctx, parseProvider(req.params.provider), req.query);
          return { status: 302, headers: { ...callbackHeaders, location: started.location, 'set-cookie': started.setCookie }, body: '' };
        } catch (e) {
          if (!(e instanceof AppError)) ctx.logger.error('oauth start failed', { error: e });
          const answer = toErrorResponse(e);
          return { ...answer, headers: { ...answer.headers, ...callbackHeaders } };
        }
      },
    },
    {
      method: 'GET',
      pattern: '/oauth/:provider/callback',
      auth: 'none',
      handle: async (req) => {
        const provider = parseProvider(req.params.provider);
        const states = req.query.getAll('state');
        // The binding cookie has done its job whatever the outcome: the browser drops it.
        const clear: Record<string, string> =
          states.length === 1 && states[0] ? { 'set-cookie': clearBindingCookie(ctx.config.publicUrl, provider, states[0]) } : {};
        try {
          const answer = toResponse(await handleCallback(ctx, provider, req.query, req.headers.cookie), req.headers.accept);
          return { ...answer, headers: { ...answer.headers, ...clear } };
        } catch (e) {
          if (!(e instanceof AppError)) ctx.logger.error('oauth callback failed', { error: e });
          const answer = toErrorResponse(e);
          return { ...answer, headers: { ...answer.headers, ...callbackHeaders, ...clear } };
        }
      },
    },
  ];
}
