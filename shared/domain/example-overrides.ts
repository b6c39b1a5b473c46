import { AppError } from './errors';
import { present } from './present';

export interface Override {
  /** Dotted path into the example payload: `issue.title`, `issue.labels.0.name`. */
  path: string;
  value: unknown;
}

const forbidden = new Set(['__proto__', 'prototype', 'constructor']);

/** `path=value` as `npm run trigger -- --set` takes it: the value is JSON when it parses as JSON, else the text. */
export function parseOverride(text: string): Override {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new AppError('invalid_input', `--set ${text}: expected path=value, e.g. issue.title="Hello"`);
  const raw = text.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // Plain text.
  }
  return { path: text.slice(0, eq).trim(), value };
}

/** Sets each override in `payload` (a copy), creating objects on the way; refuses paths into prototypes. */
export function applyOverrides(payload: Record<string, unknown>, overrides: readonly Override[]): Record<string, unknown> {
  const out = structuredClone(payload);
  for (const { path, value } of overrides) {
    const parts = path.split('.');
    if (parts.some((p) => p === '' || forbidden.has(p)))
      throw new AppError('invalid_input', `overrides: "${path}" is not a usable path`, {
        fields: [{ field: 'overrides', message: `bad path ${path}` }],
      });
    let node: Record<string, unknown> = out;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (next === null || typeof next !== 'object') node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    node[present(parts[parts.length - 1], `last part of override path ${path}`)] = value;
  }
  return out;
}
