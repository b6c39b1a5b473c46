import { healthzRoute } from '../../shared/http/healthz';
import { lambdaHttpFunction } from '../../shared/http/lambda-http-function';
import { revokeForDisconnect } from '../../shared/oauth/revoke';
import { resolveScopedKey } from '../../shared/keys/scoped-keys';
import { withObservability } from '../../shared/observability/lambda-wrapper';
import { appContext, loadProviderExamples, observability } from './deps';
import { routes } from './routes';

/** HTTP API -> connections, subscriptions, keys and triggers routes, `GET /openapi.json` and `GET /healthz` (the stack routes them here). */
export const handler = withObservability(
  observability,
  lambdaHttpFunction({
    context: appContext,
    routes: (ctx) => [healthzRoute, ...routes(ctx, { revoke: revokeForDisconnect(ctx), examples: loadProviderExamples })],
    scopedKey: resolveScopedKey,
    failure: 'platform API request failed',
  }),
);
