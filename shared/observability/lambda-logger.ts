import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttrs, Logger, LogLevel } from './logger';
import { redact, scrub } from './redact';

/** Our Logger on Lambda, plus what the handler wrapper needs of Powertools. */
export interface LambdaLogger extends Logger {
  /** Adds the invocation's request id, function name and cold start flag to every line. */
  addContext(context: Parameters<PowertoolsLogger['addContext']>[0]): void;
}

/**
 * Powertools Logger (JSON lines CloudWatch Logs Insights reads, with the Lambda context on
 * each line) behind our `Logger` interface. Nothing reaches Powertools unredacted: the
 * message is scrubbed and every attribute passes `redact` (errors become plain objects with
 * scrubbed message and stack). A JSON replacer scrubs again at serialization, for anything
 * Powertools adds itself.
 */
export function createLambdaLogger(serviceName: string, level: LogLevel = 'INFO'): LambdaLogger {
  const pt = new PowertoolsLogger({
    serviceName,
    logLevel: level,
    jsonReplacerFn: (_key, value) => (typeof value === 'string' ? scrub(value) : value),
  });
  return wrap(pt, {});
}

function wrap(pt: PowertoolsLogger, base: LogAttrs): LambdaLogger {
  const emit = (method: 'debug' | 'info' | 'warn' | 'error', message: string, attrs?: LogAttrs) => {
    const safe = redact({ ...base, ...attrs }) as LogAttrs;
    pt[method](scrub(message), safe);
  };
  return {
    debug: (m, a) => emit('debug', m, a),
    info: (m, a) => emit('info', m, a),
    warn: (m, a) => emit('warn', m, a),
    error: (m, a) => emit('error', m, a),
    child: (attrs) => wrap(pt, { ...base, ...attrs }),
    addContext: (context) => pt.addContext(context),
  };
}
