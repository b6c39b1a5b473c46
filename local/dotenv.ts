import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { present } from '../shared/domain/present';

/** Index of the first unescaped `"`, or -1. */
function closingQuote(text: string): number {
  for (let k = 0; k < text.length; k++) {
    if (text[k] === '\\') k++;
    else if (text[k] === '"') return k;
  }
  return -1;
}

/**
 * `.env` lines as the common format writes them: `KEY=value`, `export KEY=value`, `#`
 * comments, blank lines, values in single quotes (taken as they are) or double quotes
 * (`\n`, `\"` and `\\` unescaped; may span lines), unquoted values up to an inline ` #`.
 * Returns the pairs and the lines it could not read (with their numbers).
 */
export function parseDotEnv(text: string): { values: Record<string, string>; problems: string[] } {
  const values: Record<string, string> = {};
  const problems: string[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = present(lines[i], `line ${i + 1}`).trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) {
      problems.push(`line ${i + 1}: expected KEY=value`);
      continue;
    }
    const key = present(m[1], `key on line ${i + 1}`);
    let raw = present(m[2], `value on line ${i + 1}`);
    if (raw.startsWith('"')) {
      // A double-quoted value may continue on the next lines until its closing quote.
      let text = raw.slice(1);
      let j = i;
      let end = closingQuote(text);
      while (end < 0 && j + 1 < lines.length) {
        text += `\n${lines[++j]}`;
        end = closingQuote(text);
      }
      if (end < 0) {
        problems.push(`line ${i + 1}: ${key} has no closing quote`);
        continue;
      }
      i = j;
      values[key] = text.slice(0, end).replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    } else if (raw.startsWith("'")) {
      const end = raw.lastIndexOf("'");
      if (end === 0) {
        problems.push(`line ${i + 1}: ${key} has no closing quote`);
        continue;
      }
      values[key] = raw.slice(1, end);
    } else {
      raw = raw.replace(/\s+#.*$/, '');
      values[key] = raw.trim();
    }
  }
  return { values, problems };
}

/**
 * Reads `<dir>/.env` into `env` for the variables `env` does not have yet: the real
 * environment wins. Returns the names it set and the problems found (printed at start).
 */
export function loadDotEnv(
  env: Record<string, string | undefined>,
  dir = process.cwd(),
): { file?: string; loaded: string[]; problems: string[] } {
  const file = join(dir, '.env');
  if (!existsSync(file)) return { loaded: [], problems: [] };
  const { values, problems } = parseDotEnv(readFileSync(file, 'utf8'));
  const loaded: string[] = [];
  for (const [k, v] of Object.entries(values)) {
    if (env[k] !== undefined) continue;
    env[k] = v;
    loaded.push(k);
  }
  return { file, loaded, problems };
}
