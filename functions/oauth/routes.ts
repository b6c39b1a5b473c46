import type { AppContext } from '../../shared/ports/app-context';
import { json } from '../../shared/http/responses';
import { bindRoutes } from '../../shared/http/route-table';
import type { HttpResponse, Route, RouteRequest } from '../../shared/http/types';
import { startAuthorization } from '../../shared/oauth/authorize';
import { handleCallback } from '../../shared/oauth/callback';
import { parseProvider } from '../../shared/oauth/providers';
import { handleStart } from '../../shared/oauth/start';
import { providers, type Provider } from '../../shared/domain/model';
import { handleAppStart, startAppAuthorization } from '../../shared/providers/github/app/app-authorize';
import { handleAppCallback } from '../../shared/providers/github/app/app-callback';
import { callbackAnswer, refusal, startAnswer, type OAuthRouteOptions } from './flow-answers';
import { finishManifest, openManifest, startManifest } from '../../shared/providers/github/app/manifest/manifest-flow';
import { manifestDoneAnswer, manifestPostPage } from '../../shared/providers/github/app/manifest/manifest-pages';
import { AppError } from '../../shared/domain/errors';
import { serveOpenApiDocument } from './openapi-route';
import { oauthRouteTable } from './route-table';
import { connectHandlers } from '../../shared/connect/connect-routes';

export type { OAuthRouteOptions } from './flow-answers';

function providerOf(name: string | undefined): Provider | undefined {
  return providers.find((p) => p === name);
}

/** The URL carries a live state: keep it out of caches. */
function notCached(answer: HttpResponse): HttpResponse {
  return { ...answer, headers: { ...answer.headers, 'cache-control': 'no-store' } };
}

/** A page of the manifest flow, or its refusal (a page for a browser); an unexpected failure is logged. */
async function manifestAnswer(
  ctx: AppContext,
  req: RouteRequest,
  options: OAuthRouteOptions,
  answer: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  try {
    return await answer();
  } catch (e) {
    if (!(e instanceof AppError)) ctx.logger.error('github app manifest flow failed', { error: e });
    return refusal(e, req.headers.accept, 'GitHub', options);
  }
}

/** The OAuth function's routes (functions/oauth/route-table.ts), each with its handler. */
export function routes(ctx: AppContext, options: OAuthRouteOptions = {}): Route[] {
  return bindRoutes(oauthRouteTable, {
    openApi: serveOpenApiDocument,
    ...connectHandlers(ctx),
    appManifest: async (req) => notCached(json(200, await startManifest(ctx, req.input))),
    appManifestStart: async (req) => manifestAnswer(ctx, req, options, async () => manifestPostPage(await openManifest(ctx, req.query))),
    appManifestCallback: async (req) =>
      manifestAnswer(ctx, req, options, async () => manifestDoneAnswer(await finishManifest(ctx, req.query), req.headers.accept)),
    appAuthorize: async (req) => notCached(json(200, await startAppAuthorization(ctx, req.input))),
    appStart: async (req) => startAnswer(ctx, req, options, 'github app start failed', 'github', () => handleAppStart(ctx, req.query)),
    appCallback: async (req) =>
      callbackAnswer(ctx, req, options, { flow: 'github-app', provider: 'github', failure: 'github app callback failed' }, () =>
        handleAppCallback(ctx, req.query, req.headers.cookie),
      ),
    authorize: async (req) => notCached(json(200, await startAuthorization(ctx, parseProvider(req.params.provider), req.input))),
    start: async (req) =>
      startAnswer(ctx, req, options, 'oauth start failed', providerOf(req.params.provider), () =>
        handleStart(ctx, parseProvider(req.params.provider), req.query),
      ),
    callback: async (req) => {
      const provider = parseProvider(req.params.provider);
      return callbackAnswer(ctx, req, options, { flow: provider, provider, failure: 'oauth callback failed' }, () =>
        handleCallback(ctx, provider, req.query, req.headers.cookie),
      );
    },
  });
}
