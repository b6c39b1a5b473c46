import { lambdaObservability } from '../../shared/observability/lambda-wrapper';
import { lambdaAppContext } from '../../shared/wiring/lambda-context';

export { allProviderTools } from '../../shared/wiring/provider-tools';

/** This function's name: the `service` of its log lines and metrics. */
export const role = 'tool-step';

/**
 * Its logger and metrics (LOG_LEVEL, STAGE), shared by the handler's wrapper and the context.
 * This file is the function's only reader of the environment.
 */
export const observability = lambdaObservability(role, process.env);

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB and
 * Secrets Manager only, for a short cold start.
 */
export const appContext = lambdaAppContext(observability, process.env);
