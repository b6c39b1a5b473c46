import { lambdaHttpFunction } from '../../shared/http/lambda-http-function';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability, providerWebhooks } from './deps';
import { routes } from './routes';

/** Function URL -> webhook intake (base64 bodies are decoded by `fromLambdaEvent` before the signature check). */
export const handler = withObservability(
  observability,
  lambdaHttpFunction({ context: appContext, routes: (ctx) => routes(ctx, providerWebhooks), failure: 'webhook intake failed' }),
);
