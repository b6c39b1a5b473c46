// `node:fs` plus `globSync` where Node lacks it (before 22): enough for the suite's one use,
// `globSync('**/<name>', { cwd })` (its tier report), a walk matching `*` and `**/` only.
import fs from 'node:fs';
import path from 'node:path';

export * from 'node:fs';
export default fs;

function toRegExp(pattern) {
  const source = pattern
    .split('/')
    .map((part) => (part === '**' ? '(?:.*/)?' : `${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}/`))
    .join('');
  return new RegExp(`^${source.replace(/\/$/, '').replace('(?:.*/)?/', '(?:.*/)?')}$`);
}

function walk(root, dir, out) {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    out.push(rel);
    if (entry.isDirectory()) walk(root, rel, out);
  }
  return out;
}

export const globSync =
  fs.globSync ??
  ((pattern, options = {}) => {
    const cwd = options.cwd ?? process.cwd();
    const re = toRegExp(pattern);
    return walk(cwd, '', []).filter((p) => re.test(p));
  });
