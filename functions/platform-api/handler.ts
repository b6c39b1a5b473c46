import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { healthzRoute } from '../../shared/http/healthz';
import { fromLambdaEvent, toLambdaResult } from '../../shared/http/lambda-http';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest, HttpResponse } from '../../shared/http/types';
import { revokeForDisconnect } from '../../shared/oauth/revoke';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, role } from './deps';
import { routes } from './routes';

let router: ((req: HttpRequest) => Promise<HttpResponse>) | undefined;

/** HTTP API -> connections and subscriptions routes, and `GET /healthz` (the stack routes it here). */
export const handler = withObservability(role, async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const ctx = await appContext();
  router ??= createRouter([healthzRoute, ...routes(ctx, { revoke: revokeForDisconnect(ctx) })], {
    platformApiKey: ctx.platformApiKey,
    onError: (e, req) => ctx.logger.error('platform API request failed', { method: req.method, path: req.path, error: e }),
  });
  return toLambdaResult(await router(fromLambdaEvent(event)));
});
