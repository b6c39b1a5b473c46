import type { AppContext } from '../../shared/app/context';
import { loadConfig } from '../../shared/config/config';

/**
 * The only file of this function that reads the environment. Builds the AppContext once
 * per cold start (config checked at load) and hands the same one to every invocation.
 * The AWS adapters (DynamoDB store, Secrets Manager secrets and token provider) are put
 * together by the shared AWS wiring, set with `setAwsContextFactory` by the integrator.
 */
export type AwsContextFactory = (config: ReturnType<typeof loadConfig>) => Promise<AppContext>;

let factory: AwsContextFactory | undefined;
let context: Promise<AppContext> | undefined;

export function setAwsContextFactory(f: AwsContextFactory): void {
  factory = f;
  context = undefined;
}

export function getContext(): Promise<AppContext> {
  if (!factory) return Promise.reject(new Error('tool-step: no AWS context factory wired (functions/tool-step/deps.ts)'));
  context ??= factory(loadConfig()).catch((e: unknown) => {
    context = undefined; // a failed cold start must not poison every later invocation
    throw e;
  });
  return context;
}
