import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fromLambdaEvent, toLambdaResult } from '../../shared/http/lambda-http';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest, HttpResponse } from '../../shared/http/types';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, role } from './deps';
import { routes } from './routes';

let router: ((req: HttpRequest) => Promise<HttpResponse>) | undefined;

/** Function URL -> the OAuth start (platform key) and the browser's callback. */
export const handler = withObservability(role, async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const ctx = await appContext();
  router ??= createRouter(routes(ctx), {
    platformApiKey: ctx.platformApiKey,
    onError: (e, req) => ctx.logger.error('oauth request failed', { method: req.method, path: req.path, error: e }),
  });
  return toLambdaResult(await router(fromLambdaEvent(event)));
});
