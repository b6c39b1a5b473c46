import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fromLambdaEvent, toLambdaResult } from '../../shared/http/lambda-http';
import { createRouter } from '../../shared/http/router';
import { ctxReady } from './deps';
import { routes } from './routes';

const routerReady = ctxReady.then((ctx) =>
  createRouter(routes(ctx), {
    platformApiKey: ctx.platformApiKey,
    onError: (e, req) => ctx.logger.error('unhandled error', { error: e, path: req.path }),
  }),
);

/** Function URL (payload v2): the OAuth start and the browser's callback. */
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  toLambdaResult(await (await routerReady)(fromLambdaEvent(event)));
