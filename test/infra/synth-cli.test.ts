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

  it('bundles each function locally as one ESM file with a source map and the AWS SDK inside, under 1 MB', () => {
    const bundles = readdirSync(out)
      .filter((d) => d.startsWith('asset.') && existsSync(join(out, d, 'index.mjs')))
      .map((d) => join(out, d));
    expect(bundles).toHaveLength(7);
    for (const dir of bundles) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(statSync(join(dir, 'index.mjs')).size, dir).toBeLessThan(1024 * 1024);
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      // CommonJS dependencies get a working require() inside the ESM bundle.
      expect(code.startsWith("import { createRequire as __cr } from 'node:module'")).toBe(true);
      expect(code).toMatch(/export\s*\{[^}]*\bhandler\b/);
      // The SDK is bundled (pinned by package-lock.json): nothing is left to the runtime's copy.
      // (`[require("@aws-sdk/...")]` does occur, inside an SDK error message.)
      expect(code).not.toMatch(/(\bfrom\s*|\bimport\(\s*|(?<!\[)\brequire\(\s*)["']@aws-sdk\//);
    }
  });
});
