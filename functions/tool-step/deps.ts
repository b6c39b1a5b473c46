import { lambdaAppContext } from '../../shared/wiring/lambda-context';

/** This function's name: the `service` of its log lines and metrics, and its handler wrapper's. */
export const role = 'tool-step';

/**
 * The function's AppContext (see lambdaAppContext). SDK clients: DynamoDB and
 * Secrets Manager only, for a short cold start.
 */
export const appContext = lambdaAppContext(role);
