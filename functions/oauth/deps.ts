import { buildAwsContext } from '../../shared/app/aws-context';
import type { AppContext } from '../../shared/app/context';
import { loadConfig } from '../../shared/config/config';

let context: Promise<AppContext> | undefined;

/**
 * The function's AppContext, built once per cold start from the environment (the only
 * place that reads it). A failed build is not cached, so the next invocation tries again.
 */
export function appContext(): Promise<AppContext> {
  context ??= Promise.resolve()
    .then(() => buildAwsContext(loadConfig()))
    .catch((e: unknown) => {
      context = undefined;
      throw e;
    });
  return context;
}
