import { redact, scrub } from './redact';

export { redact, scrub };

/**
 * One structured logger, JSON lines, carrying delivery/event/connection/subscription/
 * trigger/tool ids as attributes. Every attribute and the message pass through `redact`
 * first, so a token, secret, code or verifier never reaches a log line, even inside an
 * error. `createJsonLogger` serves the local runtime and tests; Lambda functions use
 * `createLambdaLogger` (lambda-logger.ts: Powertools Logger behind this same interface).
 */
export type LogAttrs = Record<string, unknown>;

export interface Logger {
  debug(message: string, attrs?: LogAttrs): void;
  info(message: string, attrs?: LogAttrs): void;
  warn(message: string, attrs?: LogAttrs): void;
  error(message: string, attrs?: LogAttrs): void;
  /** A logger that adds `attrs` to every line. */
  child(attrs: LogAttrs): Logger;
}

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
export const levelOrder: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 };

export interface JsonLoggerOptions {
  level?: LogLevel;
  service?: string;
  write?: (line: string) => void;
  attrs?: LogAttrs;
}

export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const level = options.level ?? 'INFO';
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = options.attrs ?? {};
  const emit = (lvl: LogLevel, message: string, attrs?: LogAttrs) => {
    if (levelOrder[lvl] < levelOrder[level]) return;
    const entry = redact({
      level: lvl,
      timestamp: new Date().toISOString(),
      service: options.service,
      message: scrub(message),
      ...base,
      ...attrs,
    });
    write(JSON.stringify(entry));
  };
  return {
    debug: (m, a) => emit('DEBUG', m, a),
    info: (m, a) => emit('INFO', m, a),
    warn: (m, a) => emit('WARN', m, a),
    error: (m, a) => emit('ERROR', m, a),
    child: (attrs) => createJsonLogger({ ...options, attrs: { ...base, ...attrs } }),
  };
}

export const silentLogger: Logger = createJsonLogger({ level: 'SILENT' });
