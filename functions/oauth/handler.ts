import { lambdaHttpFunction } from '../../shared/http/lambda-http-function';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, observability } from './deps';
import { routes } from './routes';

/** Function URL -> the OAuth start (platform key) and the browser's callback. */
export const handler = withObservability(
  observability,
  lambdaHttpFunction({ context: appContext, routes, failure: 'oauth request failed' }),
);
