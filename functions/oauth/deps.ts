import { buildAwsContext } from '../../shared/app/aws-context';
import type { AppContext } from '../../shared/app/context';
import { loadConfig } from '../../shared/config/config';

/** Built once per cold start; the only file of this function that reads the environment. */
export const ctxReady: Promise<AppContext> = Promise.resolve(buildAwsContext(loadConfig()));
