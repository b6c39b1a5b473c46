/**
 * One structured logger, JSON lines, carrying delivery/event/connection/subscription/
 * trigger/tool ids as attributes. Every attribute passes through `redact` first, so a
 * token, secret, code or verifier never reaches a log line, even inside an error.
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
const order: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 };

const sensitiveKey = /token|secret|password|authorization|cookie|verifier|^code$|credential|signature|api[-_]?key/i;
/** Values that look like credentials whatever key they hide under. */
const sensitiveValue =
  /\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|Bearer\s+[A-Za-z0-9._~+/=-]{8,}|token\s+[A-Za-z0-9._-]{8,})/g;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[depth]';
  if (typeof value === 'string') return value.replace(sensitiveValue, '[REDACTED]');
  if (value instanceof Error) {
    return { name: value.name, message: redact(value.message, depth + 1), code: (value as { code?: unknown }).code };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = sensitiveKey.test(k) ? '[REDACTED]' : redact(v, depth + 1);
    return out;
  }
  return value;
}

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
    if (order[lvl] < order[level]) return;
    const entry = redact({ level: lvl, timestamp: new Date().toISOString(), service: options.service, message, ...base, ...attrs });
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
