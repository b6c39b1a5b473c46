import type { Context } from 'aws-lambda';
import { createEmfMetrics, type EmfMetrics } from './emf-metrics';
import { createLambdaLogger, type LambdaLogger } from './lambda-logger';
import type { LogLevel } from './logger';
import { metricNamespace } from './metric-names';

/** One function's logger and metrics: the same instances for its AppContext and its wrapper. */
export interface LambdaObservability {
  /** The function's role: the `service` of its log lines and metrics. */
  name: string;
  logger: LambdaLogger;
  metrics: EmfMetrics;
}

const instances = new Map<string, LambdaObservability>();
const levels = new Set<LogLevel>(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']);

/**
 * The logger and metrics of function `name`, created once per container. Built from
 * `STAGE` and `LOG_LEVEL` directly rather than the config: the wrapper needs them before
 * the AppContext exists, and a bad LOG_LEVEL must not stop the function (INFO then).
 * `env` is the function's environment, which only its deps.ts reads.
 */
export function lambdaObservability(name: string, env: Record<string, string | undefined>): LambdaObservability {
  let found = instances.get(name);
  if (!found) {
    const level = (env.LOG_LEVEL ?? 'INFO').toUpperCase() as LogLevel;
    found = {
      name,
      logger: createLambdaLogger(name, levels.has(level) ? level : 'INFO'),
      metrics: createEmfMetrics(metricNamespace, env.STAGE ?? 'dev', { service: name }),
    };
    instances.set(name, found);
  }
  return found;
}

/**
 * Wraps a Lambda handler: the invocation's context on every log line, one `cold start`
 * line per container, an `invocation failed` line (redacted) when it throws, and the
 * metrics counted during the invocation flushed as EMF after it, whatever happened.
 */
export function withObservability<E, R>(
  observability: LambdaObservability,
  handler: (event: E, context: Context) => Promise<R>,
): (event: E, context: Context) => Promise<R> {
  const { name, logger, metrics } = observability;
  let cold = true;
  return async (event, context) => {
    if (context) logger.addContext(context);
    if (cold) {
      cold = false;
      logger.info('cold start', { function: name });
    }
    try {
      return await handler(event, context);
    } catch (e) {
      logger.error('invocation failed', { function: name, error: e });
      throw e;
    } finally {
      metrics.flush();
    }
  };
}
