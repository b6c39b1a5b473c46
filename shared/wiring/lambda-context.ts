import { loadConfig } from '../config/config';
import { createSecretsManagerClient, readSecretString } from '../adapters/aws/secrets-manager-reader';
import type { LambdaObservability } from '../observability/lambda-wrapper';
import { appIdentityRefresh } from './app-identity-refresh';
import { buildAwsCoreContext, type AwsAdapters, type LambdaContext } from './aws-core-context';
import { perContainer } from './per-container';

/**
 * A Lambda function's context, built once per container from `env` (the environment its
 * deps.ts, the only reader, passes in), with the same Powertools logger and EMF metrics its
 * handler's `withObservability(observability, ...)` wrapper flushes after each invocation.
 * DynamoDB and Secrets Manager always; `adapters` adds only what the role uses, for a short
 * cold start. Before each invocation has it, the GitHub App the deploy settings do not name is
 * taken from the stack's identity secret when due (shared/wiring/app-identity-refresh.ts).
 */
export function lambdaAppContext(
  observability: LambdaObservability,
  env: Record<string, string | undefined>,
  adapters: AwsAdapters = {},
): () => Promise<LambdaContext> {
  const { name, logger, metrics } = observability;
  const container = perContainer(() => {
    const config = loadConfig(env);
    const secretsManager = createSecretsManagerClient();
    const ctx = buildAwsCoreContext(config, adapters, { logger, metrics, service: name, secretsManager });
    const takeApp = appIdentityRefresh({
      github: config.github,
      read: (arn) => readSecretString(secretsManager, arn),
      now: () => ctx.clock.now(),
      logger: ctx.logger,
    });
    return { ctx, takeApp };
  });
  return async () => {
    const { ctx, takeApp } = await container();
    await takeApp();
    return ctx;
  };
}
