import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../infra/constructs/integration-function';

/**
 * What an operator runs: `npx cdk synth` from the repository root, with no AWS account,
 * real esbuild bundling (never Docker) and the cdk-nag plugin of infra/app.ts, which fails
 * the synth on any unacknowledged finding. One synth for the whole file.
 */
const run = promisify(execFile);
let out: string;
let result: { stdout: string; stderr: string };

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'cdk-synth-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', AWS_EC2_METADATA_DISABLED: 'true' };
  for (const k of Object.keys(env))
    if (/^(AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|PROFILE)|CDK_DEFAULT_)/.test(k)) delete env[k];
  result = await run('npx', ['cdk', 'synth', '--quiet', '--no-notices', '-c', 'stage=ci', '-o', out], {
    cwd: projectRoot,
    env,
    maxBuffer: 32 * 1024 * 1024,
  });
}, 360_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('npx cdk synth', () => {
  it('writes the AgentIntegrations-<stage> template without an AWS account, cdk-nag passing', () => {
    const template = JSON.parse(readFileSync(join(out, 'AgentIntegrations-ci.template.json'), 'utf8'));
    const fns = Object.values(template.Resources as Record<string, { Type: string; Properties: any }>).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    expect(fns).toHaveLength(7);
    expect(result.stderr).not.toMatch(/AwsSolutions-[A-Z]+\d+/);
  });

  it('bundles each function locally as ESM with source maps and the AWS SDK inside, under 1 MB of code', () => {
    const bundles = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')))
      .map((d) => join(out, d));
    expect(bundles).toHaveLength(7);
    for (const dir of bundles) {
      // index.mjs, and chunks/ for what the function reads only on first use.
      const files = readdirSync(dir, { recursive: true }) as string[];
      const code = files.filter((f) => f.endsWith('.mjs'));
      expect(
        files.filter((f) => f !== 'chunks' && !f.endsWith('.mjs') && !f.endsWith('.mjs.map')),
        dir,
      ).toEqual([]);
      expect(
        code.filter((f) => f !== 'index.mjs' && !f.startsWith('chunks/')),
        dir,
      ).toEqual([]);
      expect(
        code.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0),
        dir,
      ).toBeLessThan(1024 * 1024);
      const index = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(index).toMatch(/export\s*\{[^}]*\bhandler\b/);
      for (const f of code) {
        const text = readFileSync(join(dir, f), 'utf8');
        expect(existsSync(join(dir, `${f}.map`)), f).toBe(true);
        // CommonJS dependencies get a working require() inside each ESM file.
        expect(text.startsWith("import { createRequire as __cr } from 'node:module'"), f).toBe(true);
        // The SDK is bundled (pinned by package-lock.json): nothing is left to the runtime's copy.
        // (`[require("@aws-sdk/...")]` does occur, inside an SDK error message.)
        expect(text).not.toMatch(/(\bfrom\s*|\bimport\(\s*|(?<!\[)\brequire\(\s*)["']@aws-sdk\//);
      }
    }
  });
});
