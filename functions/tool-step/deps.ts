import { buildAwsContext } from '../../shared/app/aws-context';
import type { AppContext } from '../../shared/app/context';
import { loadConfig } from '../../shared/config/config';

let context: Promise<AppContext> | undefined;

/**
 * The only file of this function that reads the environment: the AppContext is built once
 * per cold start (config checked then) and shared by every invocation. A failed build is
 * not cached, so one bad cold start does not poison the container.
 */
export function getContext(): Promise<AppContext> {
  context ??= Promise.resolve()
    .then(() => buildAwsContext(loadConfig()))
    .catch((e: unknown) => {
      context = undefined;
      throw e;
    });
  return context;
}
