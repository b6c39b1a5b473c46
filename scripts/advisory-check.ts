import * as z from 'zod';

/**
 * An offline check of package-lock.json against a committed list of known advisories
 * (scripts/advisories.json). `npm audit` needs the registry's advisory endpoint, which CI
 * and this build machine cannot reach; this check needs nothing but the two files. It
 * finds a locked package whose version falls in a listed vulnerable range; it cannot know
 * advisories published after the list was last refreshed (docs/operations.md, "Dependency
 * advisories", says how to refresh it).
 */

const severity = z.enum(['low', 'moderate', 'high', 'critical']);

const advisorySchema = z.object({
  /** GHSA id (or the npm advisory URL's id). */
  id: z.string().min(1),
  package: z.string().min(1),
  /** npm semver range (`<3.0.3`, `>=7.0.0 <7.0.5 || <6.0.6`); GitHub's `>= 1.0, < 2.0` is read too. */
  vulnerable: z.string().min(1),
  severity,
  title: z.string().min(1),
  url: z.url(),
});
export type Advisory = z.infer<typeof advisorySchema>;

export const advisoryListSchema = z.object({
  /** The day the list was last refreshed (YYYY-MM-DD). */
  updated: z.iso.date(),
  /** Where the entries came from, for the next person to refresh them. */
  note: z.string().optional(),
  advisories: z.array(advisorySchema),
});
export type AdvisoryList = z.infer<typeof advisoryListSchema>;

const lockSchema = z.object({
  lockfileVersion: z.number().int().min(2),
  packages: z.record(z.string(), z.object({ version: z.string().optional(), dev: z.boolean().optional(), link: z.boolean().optional() })),
});

export interface LockedPackage {
  name: string;
  version: string;
  /** Where it is installed, e.g. `node_modules/aws-cdk-lib/node_modules/semver`. */
  path: string;
  dev: boolean;
}

/** Every installed package of a lockfile (v2/v3 `packages`), nested copies included. */
export function lockedPackages(lockJson: unknown): LockedPackage[] {
  const lock = lockSchema.parse(lockJson);
  const out: LockedPackage[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const at = path.lastIndexOf('node_modules/');
    if (at < 0 || !entry.version || entry.link) continue;
    out.push({ name: path.slice(at + 'node_modules/'.length), version: entry.version, path, dev: entry.dev === true });
  }
  return out;
}

type Version = [number, number, number, string];

function parseVersion(v: string): Version | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(v.trim());
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4] ?? ''];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  // A prerelease sorts before its release (1.0.0-beta < 1.0.0).
  if (a[3] === b[3]) return 0;
  if (a[3] === '') return 1;
  if (b[3] === '') return -1;
  return a[3] < b[3] ? -1 : 1;
}

/**
 * Whether `version` is in `range`: alternatives joined by `||`, each a list of comparators
 * (`<`, `<=`, `>`, `>=`, `=` or none) separated by spaces or commas. An unreadable range or
 * version counts as a match, so a typo in the list is reported rather than passing silently.
 */
export function inRange(version: string, range: string): boolean {
  const v = parseVersion(version);
  if (!v) return true;
  return range.split('||').some((alternative) => {
    const comparators = [...alternative.matchAll(/(<=|>=|<|>|=)?\s*(v?\d[0-9A-Za-z.+-]*)/g)];
    if (comparators.length === 0) return true;
    return comparators.every(([, op, bound]) => {
      const b = parseVersion(bound!);
      if (!b) return true;
      const c = compare(v, b);
      switch (op) {
        case '<':
          return c < 0;
        case '<=':
          return c <= 0;
        case '>':
          return c > 0;
        case '>=':
          return c >= 0;
        default:
          return c === 0;
      }
    });
  });
}

export interface Finding {
  advisory: Advisory;
  installed: LockedPackage;
}

/** Every (advisory, installed copy) pair where the copy's version is in the advisory's range. */
export function findVulnerable(packages: LockedPackage[], list: AdvisoryList): Finding[] {
  const findings: Finding[] = [];
  for (const advisory of list.advisories) {
    for (const installed of packages) {
      if (installed.name === advisory.package && inRange(installed.version, advisory.vulnerable)) findings.push({ advisory, installed });
    }
  }
  return findings;
}

/** Whole days between the list's `updated` day and `now`. */
export function ageInDays(list: AdvisoryList, now: Date): number {
  return Math.floor((now.getTime() - Date.parse(`${list.updated}T00:00:00Z`)) / 86_400_000);
}

const npmAuditSchema = z
  .object({
    vulnerabilities: z.record(
      z.string(),
      z
        .object({
          via: z.array(
            z.union([z.string(), z.object({ name: z.string(), title: z.string(), url: z.string(), severity, range: z.string() }).loose()]),
          ),
        })
        .loose(),
    ),
  })
  .loose();

/**
 * Adds the advisories of an `npm audit --json` report (run where the registry is reachable)
 * to the list, keeping every entry it had; the same id for the same package is replaced.
 */
export function mergeNpmAudit(list: AdvisoryList, auditJson: unknown, today: string): AdvisoryList {
  const audit = npmAuditSchema.parse(auditJson);
  const byKey = new Map(list.advisories.map((a) => [`${a.package} ${a.id}`, a]));
  for (const vulnerability of Object.values(audit.vulnerabilities)) {
    for (const via of vulnerability.via) {
      if (typeof via === 'string') continue; // "via another package": that package has its own entry
      const id = /GHSA-[0-9a-z-]+/i.exec(via.url)?.[0] ?? via.url;
      byKey.set(`${via.name} ${id}`, {
        id,
        package: via.name,
        vulnerable: via.range,
        severity: via.severity,
        title: via.title,
        url: via.url,
      });
    }
  }
  const advisories = [...byKey.values()].sort((a, b) => a.package.localeCompare(b.package) || a.id.localeCompare(b.id));
  return advisoryListSchema.parse({ updated: today, note: list.note, advisories });
}
