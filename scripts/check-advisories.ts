/**
 * `npm run advisories` — checks package-lock.json against scripts/advisories.json offline
 * (see advisory-check.ts). Exit 1 when a locked package is in a listed vulnerable range.
 *
 *   npm run advisories                                # check
 *   npm run advisories -- --import audit.json         # refresh: merge `npm audit --json` output, then check
 *
 * Options: --lock <file> (package-lock.json), --list <file> (scripts/advisories.json),
 * --max-age-days <n> (90: older lists get a warning, not a failure).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { advisoryListSchema, ageInDays, findVulnerable, lockedPackages, mergeNpmAudit } from './advisory-check';

const root = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    lock: { type: 'string', default: join(root, 'package-lock.json') },
    list: { type: 'string', default: join(root, 'scripts', 'advisories.json') },
    import: { type: 'string' },
    'max-age-days': { type: 'string', default: '90' },
  },
});
const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

let list = advisoryListSchema.parse(readJson(values.list));
if (values.import) {
  list = mergeNpmAudit(list, readJson(values.import), new Date().toISOString().slice(0, 10));
  writeFileSync(values.list, `${JSON.stringify(list, null, 2)}\n`);
  console.log(`merged ${values.import} into ${values.list}: ${list.advisories.length} advisories`);
}

const packages = lockedPackages(readJson(values.lock));
const findings = findVulnerable(packages, list);
const age = ageInDays(list, new Date());
if (age > Number(values['max-age-days'])) {
  console.warn(
    `warning: the advisory list was refreshed ${age} days ago (${list.updated}); refresh it (docs/operations.md, "Dependency advisories")`,
  );
}
for (const f of findings) {
  console.log(
    `${f.advisory.severity.padEnd(8)} ${f.installed.name}@${f.installed.version} (${f.installed.path}${f.installed.dev ? ', dev' : ''}): ${f.advisory.title} [${f.advisory.id}, vulnerable ${f.advisory.vulnerable}] ${f.advisory.url}`,
  );
}
console.log(
  `${packages.length} locked packages checked against ${list.advisories.length} advisories (list of ${list.updated}): ${findings.length} found`,
);
process.exit(findings.length > 0 ? 1 : 0);
