import { buildAwsCoreContext } from '../../shared/app/aws-core-context';
import { perContainer } from '../../shared/app/per-container';
import { loadConfig } from '../../shared/config/config';
import { lambdaObservability } from '../../shared/observability/lambda-wrapper';

/** This function's name: the `service` of its log lines and metrics, and its handler wrapper's. */
export const role = 'redelivery-sweep';

/**
 * The function's AppContext, built once per container from the environment (the only place
 * that reads it), with the same Powertools logger and EMF metrics the handler's
 * `withObservability` wrapper flushes after each invocation. SDK clients: DynamoDB and
 * Secrets Manager only, for a short cold start.
 */
export const appContext = perContainer(() => buildAwsCoreContext(loadConfig(), {}, { ...lambdaObservability(role), service: role }));
