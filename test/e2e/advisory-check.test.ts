import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  advisoryListSchema,
  ageInDays,
  findVulnerable,
  inRange,
  lockedPackages,
  mergeNpmAudit,
  type AdvisoryList,
} from '../../scripts/advisory-check';

/**
 * The offline dependency check (docs/security.md, section 10): `npm audit` cannot reach an advisory endpoint
 * here, so package-lock.json is checked against the committed scripts/advisories.json.
 */
const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'advisories-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const list: AdvisoryList = {
  updated: '2026-01-01',
  advisories: [
    {
      id: 'GHSA-grv7-fg5c-xmjg',
      package: 'braces',
      vulnerable: '<3.0.3',
      severity: 'high',
      title: 'braces',
      url: 'https://github.com/advisories/GHSA-grv7-fg5c-xmjg',
    },
    {
      id: 'GHSA-c2qf-rxjj-qqgw',
      package: 'semver',
      vulnerable: '<5.7.2 || >=6.0.0 <6.3.1 || >=7.0.0 <7.5.2',
      severity: 'moderate',
      title: 'semver',
      url: 'https://github.com/advisories/GHSA-c2qf-rxjj-qqgw',
    },
  ],
};
const lock = (packages: Record<string, { version?: string; dev?: boolean; link?: boolean }>) => ({
  name: 'x',
  lockfileVersion: 3,
  packages: { '': { name: 'x' }, ...packages },
});

describe('version ranges', () => {
  it('reads npm ranges, GitHub comma lists, alternatives and prereleases', () => {
    expect(inRange('3.0.2', '<3.0.3')).toBe(true);
    expect(inRange('3.0.3', '<3.0.3')).toBe(false);
    expect(inRange('6.3.0', '<5.7.2 || >=6.0.0 <6.3.1 || >=7.0.0 <7.5.2')).toBe(true);
    expect(inRange('6.3.1', '<5.7.2 || >=6.0.0 <6.3.1 || >=7.0.0 <7.5.2')).toBe(false);
    expect(inRange('1.4.0', '>= 1.0.0, < 2.0.0')).toBe(true);
    expect(inRange('2.0.0', '>= 1.0.0, < 2.0.0')).toBe(false);
    expect(inRange('3.0.0-beta.1', '<3.0.0')).toBe(true);
    expect(inRange('4.0.0', '=4.0.0')).toBe(true);
    expect(inRange('4.0.1', '=3.0.0 || =4.0.0')).toBe(false);
    expect(inRange('0.24.2', '<=0.24.2')).toBe(true);
  });

  it('counts an unreadable range or version as a match, so a typo is reported and not passed over', () => {
    expect(inRange('1.0.0', 'before three')).toBe(true);
    expect(inRange('latest', '<1.0.0')).toBe(true);
  });
});

describe('lockfile check', () => {
  it('finds every installed copy in a vulnerable range, nested copies included, and skips links', () => {
    const packages = lockedPackages(
      lock({
        'node_modules/braces': { version: '3.0.3' },
        'node_modules/a/node_modules/braces': { version: '3.0.2', dev: true },
        'node_modules/semver': { version: '7.5.1' },
        'node_modules/linked': { link: true },
        'packages/local': { version: '1.0.0' },
      }),
    );
    expect(packages.map((p) => p.name).sort()).toEqual(['braces', 'braces', 'semver']);
    const found = findVulnerable(packages, list).map((f) => `${f.installed.path}@${f.installed.version} ${f.advisory.id}`);
    expect(found.sort()).toEqual([
      'node_modules/a/node_modules/braces@3.0.2 GHSA-grv7-fg5c-xmjg',
      'node_modules/semver@7.5.1 GHSA-c2qf-rxjj-qqgw',
    ]);
  });

  it('says how old the list is', () => {
    expect(ageInDays(list, new Date('2026-04-11T12:00:00Z'))).toBe(100);
  });
});

describe('refresh from npm audit', () => {
  it('merges the advisories of an `npm audit --json` report, keeping the old ones', () => {
    const audit = {
      auditReportVersion: 2,
      vulnerabilities: {
        micromatch: {
          name: 'micromatch',
          severity: 'moderate',
          via: [
            {
              source: 1098681,
              name: 'micromatch',
              dependency: 'micromatch',
              title: 'ReDoS in micromatch',
              url: 'https://github.com/advisories/GHSA-952p-6rrq-rcjv',
              severity: 'moderate',
              range: '<4.0.8',
            },
          ],
        },
        'fast-glob': { name: 'fast-glob', severity: 'moderate', via: ['micromatch'] },
      },
      metadata: {},
    };
    const merged = mergeNpmAudit(list, audit, '2026-12-01');
    expect(merged.updated).toBe('2026-12-01');
    expect(merged.advisories.map((a) => `${a.package} ${a.id} ${a.vulnerable}`)).toEqual([
      'braces GHSA-grv7-fg5c-xmjg <3.0.3',
      'micromatch GHSA-952p-6rrq-rcjv <4.0.8',
      'semver GHSA-c2qf-rxjj-qqgw <5.7.2 || >=6.0.0 <6.3.1 || >=7.0.0 <7.5.2',
    ]);
  });
});

describe('the committed list and lockfile (what CI checks)', () => {
  it('lists advisories, and no locked package of this project is in a listed range', () => {
    const committed = advisoryListSchema.parse(JSON.parse(readFileSync(join(root, 'scripts', 'advisories.json'), 'utf8')));
    expect(committed.advisories.length).toBeGreaterThan(10);
    const packages = lockedPackages(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')));
    expect(packages.length).toBeGreaterThan(100);
    expect(findVulnerable(packages, committed).map((f) => `${f.installed.path}@${f.installed.version}: ${f.advisory.id}`)).toEqual([]);
  });

  it('`npm run advisories` exits 1 and names the package, path and advisory when a locked package is vulnerable', async () => {
    const lockFile = join(dir, 'package-lock.json');
    writeFileSync(lockFile, JSON.stringify(lock({ 'node_modules/a/node_modules/braces': { version: '3.0.2' } })));
    const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    const failed = await run(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'check-advisories.ts'), '--lock', lockFile], {
      cwd: root,
      env,
    }).catch((e: { code: number; stdout: string }) => e);
    expect((failed as { code?: number }).code).toBe(1);
    expect(failed.stdout).toMatch(/high\s+braces@3\.0\.2 \(node_modules\/a\/node_modules\/braces\).*GHSA-grv7-fg5c-xmjg/);
    const passed = await run(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'check-advisories.ts')], { cwd: root, env });
    expect(passed.stdout).toMatch(/: 0 found/);
  }, 60_000);
});
