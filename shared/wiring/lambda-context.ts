import { loadConfig } from '../config/config';
import type { LambdaObservability } from '../observability/lambda-wrapper';
import { buildAwsCoreContext, type AwsAdapters, type LambdaContext } from './aws-core-context';
import { perContainer } from './per-container';

/**
 * A Lambda function's context, built once per container from `env` (the environment its
 * deps.ts, the only reader, passes in), with the same Powertools logger and EMF metrics its
 * handler's `withObservability(observability, ...)` wrapper flushes after each invocation.
 * DynamoDB and Secrets Manager always; `adapters` adds only what the role uses, for a short
 * cold start.
 */
export function lambdaAppContext(
  observability: LambdaObservability,
  env: Record<string, string | undefined>,
  adapters: AwsAdapters = {},
): () => Promise<LambdaContext> {
  const { name, logger, metrics } = observability;
  return perContainer(() => buildAwsCoreContext(loadConfig(env), adapters, { logger, metrics, service: name }));
}
