import { loadConfig } from '../config/config';
import { lambdaObservability } from '../observability/lambda-wrapper';
import { buildAwsCoreContext, type AwsAdapters, type LambdaContext } from './aws-core-context';
import { perContainer } from './per-container';

/**
 * A Lambda function's AppContext, built once per container from the environment (the only
 * place that reads it), with the same Powertools logger and EMF metrics its handler's
 * `withObservability(role, ...)` wrapper flushes after each invocation. DynamoDB and Secrets
 * Manager always; `adapters` adds only what the role uses, for a short cold start.
 */
export function lambdaAppContext(role: string, adapters: AwsAdapters = {}): () => Promise<LambdaContext> {
  return perContainer(() => buildAwsCoreContext(loadConfig(), adapters, { ...lambdaObservability(role), service: role }));
}
