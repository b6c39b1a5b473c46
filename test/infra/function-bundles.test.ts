import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleOutputs } from '../../infra/bundling/bundle-outputs';
import { functionBuildOptions } from '../../infra/bundling/esbuild-options';

const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const outDir = mkdtempSync(join(tmpdir(), 'bundle-check-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/**
 * Each AWS SDK client package a function loads costs cold start (S3 the most), so every
 * function imports only the clients its role calls (functions/<name>/deps.ts with
 * buildAwsCoreContext and the adapters it needs), and S3, needed only for bodies stored
 * aside, is loaded on first use, as is KMS, needed only when a container meets an installation token it does not hold. The SDK is bundled (infra/bundling/esbuild-options.ts);
 * `npm run bench:cold-start` measures the load times; this pins which clients each bundle
 * loads at start-up and which only on first use.
 */
const expected: Record<string, { atStartup: string[]; onFirstUse: string[] }> = {
  'webhook-intake': {
    atStartup: ['client-dynamodb', 'client-secrets-manager', 'client-sqs', 'util-dynamodb'],
    onFirstUse: ['client-kms', 'client-s3'],
  },
  dispatch: {
    atStartup: ['client-dynamodb', 'client-secrets-manager', 'client-sqs', 'util-dynamodb'],
    onFirstUse: ['client-kms', 'client-s3'],
  },
  poller: {
    atStartup: ['client-dynamodb', 'client-secrets-manager', 'client-sqs', 'util-dynamodb'],
    onFirstUse: ['client-kms', 'client-s3'],
  },
  'redelivery-sweep': {
    atStartup: ['client-dynamodb', 'client-secrets-manager', 'client-sqs', 'util-dynamodb'],
    onFirstUse: ['client-kms'],
  },
  'tool-step': { atStartup: ['client-dynamodb', 'client-secrets-manager', 'util-dynamodb'], onFirstUse: ['client-kms'] },
  oauth: { atStartup: ['client-dynamodb', 'client-secrets-manager', 'util-dynamodb'], onFirstUse: ['client-kms'] },
  'platform-api': {
    atStartup: ['client-dynamodb', 'client-secrets-manager', 'util-dynamodb'],
    onFirstUse: ['client-kms', 'client-s3', 'client-sqs'],
  },
};

const sdkClient = /node_modules\/@aws-sdk\/(client-[^/]+|util-dynamodb)\//;

/** Builds a function as deployed; `write` puts its files in outDir/<name> (to be loaded). */
async function buildFunction(name: string, write = false): Promise<Metafile> {
  const result = await build({
    ...functionBuildOptions(join(root, 'functions', name, 'handler.ts'), join(outDir, name)),
    absWorkingDir: root,
    write,
    logLevel: 'silent',
  });
  return result.metafile as Metafile;
}

async function sdkClientsOf(name: string): Promise<{ atStartup: string[]; onFirstUse: string[]; external: string[] }> {
  const metafile = await buildFunction(name);
  const outputs = bundleOutputs(metafile);
  const clientOf = (file: string) => file.match(sdkClient)?.[1];
  const clientsIn = (files: string[]) =>
    new Set(files.flatMap((f) => Object.keys(metafile.outputs[f]!.inputs).map(clientOf)).filter((c): c is string => c !== undefined));
  // Start-up: the inputs of index.mjs and of the chunks it imports statically.
  const atStartup = clientsIn(outputs.atStartup);
  return {
    atStartup: [...atStartup].sort(),
    onFirstUse: [...clientsIn(outputs.code)].filter((c) => !atStartup.has(c)).sort(),
    external: outputs.code.flatMap((f) =>
      metafile.outputs[f]!.imports.filter((i) => i.external && !i.path.startsWith('node:')).map((i) => i.path),
    ),
  };
}

describe('function bundles load only the AWS SDK clients their role uses', () => {
  for (const [name, clients] of Object.entries(expected)) {
    it(`${name}: ${clients.atStartup.join(', ')}${clients.onFirstUse.length ? `; on first use ${clients.onFirstUse.join(', ')}` : ''}`, async () => {
      const found = await sdkClientsOf(name);
      expect({ atStartup: found.atStartup, onFirstUse: found.onFirstUse }).toEqual(clients);
      // The SDK is inside the bundle (its versions pinned by package-lock.json), not the runtime's.
      expect(found.external).toEqual([]);
    });
  }
});

describe('code no Lambda function runs', () => {
  it("leaves out the SDK's browser user-agent parser (bowser), which only a browser calls", async () => {
    const metafile = await buildFunction('tool-step');
    expect(Object.keys(metafile.inputs).filter((f) => f.includes('node_modules/bowser/'))).toEqual([]);
  });
});

describe('credential sources no Lambda function has', () => {
  it('leaves out SSO, the shared config files, a credential process and a web identity token file (and the STS and SSO clients they call); the chain still takes the environment', async () => {
    const dir = join(outDir, 'credentials-probe');
    const result = await build({
      ...functionBuildOptions('credentials-probe.ts', dir),
      entryPoints: undefined,
      stdin: {
        contents: [
          "import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';",
          "const client = new SecretsManagerClient({ region: 'eu-west-1' });",
          'try { console.log(JSON.stringify({ accessKeyId: (await client.config.credentials()).accessKeyId })); }',
          'catch (e) { console.log(JSON.stringify({ error: e.name, message: e.message })); }',
        ].join('\n'),
        resolveDir: root,
        sourcefile: 'credentials-probe.ts',
        loader: 'ts',
      },
      absWorkingDir: root,
    });
    const inputs = Object.keys(result.metafile!.inputs);
    expect(
      inputs.filter((f) => /node_modules\/@aws-sdk\/(nested-clients|credential-provider-(sso|ini|process|web-identity|login))\//.test(f)),
    ).toEqual([]);
    const home = mkdtempSync(join(tmpdir(), 'no-profile-'));
    const probe = async (env: Record<string, string>) =>
      JSON.parse(
        (await run(process.execPath, [join(dir, 'index.mjs')], { env: { PATH: process.env.PATH ?? '', HOME: home, ...env } })).stdout,
      );
    expect(await probe({ AWS_ACCESS_KEY_ID: 'AKIDFROMTHEROLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' })).toEqual({
      accessKeyId: 'AKIDFROMTHEROLE',
    });
    // Without them the chain goes past the sources left out, as it does past those that find nothing.
    expect(await probe({ AWS_EC2_METADATA_DISABLED: 'true' })).toEqual({
      error: 'CredentialsProviderError',
      message: expect.stringMatching(/^Could not load credentials from any providers/),
    });
    rmSync(home, { recursive: true, force: true });
  }, 60_000);
});

describe('code a function loads on first use', () => {
  it('tool-step: Octokit and the MCP SDK are in chunks read on first use, not at a cold start, and every chunk loads with no node_modules near it', async () => {
    const metafile = await buildFunction('tool-step', true);
    const outputs = bundleOutputs(metafile);
    const holding = (files: string[], pkg: string) =>
      files.filter((f) => Object.keys(metafile.outputs[f]!.inputs).some((i) => i.includes(`node_modules/${pkg}/`)));
    expect(holding(outputs.atStartup, '@octokit')).toEqual([]);
    // Octokit's chunk, the GitHub App's JWT library's (@octokit/auth-app), and what the two share.
    expect(holding(outputs.code, '@octokit').length).toBeGreaterThan(0);
    expect(holding(outputs.code, '@octokit/auth-app')).toHaveLength(1);
    expect(holding(outputs.atStartup, '@octokit/auth-app')).toEqual([]);
    expect(holding(outputs.atStartup, '@modelcontextprotocol')).toEqual([]);
    expect(holding(outputs.code, '@modelcontextprotocol').length).toBeGreaterThan(0);
    expect(outputs.code.length).toBeGreaterThan(outputs.atStartup.length);
    // Each chunk resolves its own imports (relative, node: built-ins, its own require()).
    const urls = outputs.code.map((f) => pathToFileURL(join(root, f)).href);
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `const urls = ${JSON.stringify(urls)}; for (const u of urls) await import(u); console.log('loaded', urls.length);`,
    ]);
    expect(stdout.trim()).toBe(`loaded ${urls.length}`);
  }, 120_000);

  it('platform-api: the polling code (list reads, item mapping, fan-out) is read on the first subscription, not at a cold start', async () => {
    const metafile = await buildFunction('platform-api');
    const outputs = bundleOutputs(metafile);
    const polling = (files: string[]) =>
      files
        .flatMap((f) => Object.keys(metafile.outputs[f]!.inputs))
        .filter((i) => /^shared\/(polling|providers\/[^/]+\/(polling|mapping))\//.test(i));
    expect(polling(outputs.atStartup)).toEqual([]);
    expect(polling(outputs.code)).toContain('shared/providers/github/polling/poll-baseline.ts');
    expect(polling(outputs.code)).toContain('shared/providers/github/mapping/map-polled.ts');
  });

  it("webhook-intake: each route's source and the payload mappings are read on the route's first delivery; no other function bundles the sources", async () => {
    const sources = /^shared\/providers\/[^/]+\/intake\/[^/]+-source\.ts$/;
    const inputsOf = (metafile: Metafile, files: string[]) => files.flatMap((f) => Object.keys(metafile.outputs[f]!.inputs));
    const intake = await buildFunction('webhook-intake');
    const outputs = bundleOutputs(intake);
    expect(
      inputsOf(intake, outputs.code)
        .filter((i) => sources.test(i))
        .sort(),
    ).toEqual([
      'shared/providers/contentsnare/intake/snare-source.ts',
      'shared/providers/github/intake/app-source.ts',
      'shared/providers/github/intake/hook-source.ts',
    ]);
    expect(inputsOf(intake, outputs.atStartup).filter((i) => sources.test(i) || /^shared\/providers\/[^/]+\/mapping\//.test(i))).toEqual(
      [],
    );
    for (const name of Object.keys(expected).filter((n) => n !== 'webhook-intake')) {
      const metafile = await buildFunction(name);
      expect(
        inputsOf(metafile, bundleOutputs(metafile).code).filter((i) => sources.test(i)),
        name,
      ).toEqual([]);
    }
  }, 120_000);
});

describe('zod in a function bundle', () => {
  it('is imported as a namespace everywhere in product code, so esbuild can shake it', () => {
    // `import { z }` hands esbuild a namespace object it cannot shake (~95 KB more per bundle).
    const offenders = ['shared', 'functions', 'local'].flatMap((dir) =>
      (readdirSync(dir, { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(dir, f))
        .filter((f) => /^import \{ z \} from 'zod';$/m.test(readFileSync(f, 'utf8'))),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps its English messages and z.locales.en, and drops every other locale', async () => {
    const outfile = join(outDir, 'zod-probe', 'index.mjs');
    const result = await build({
      ...functionBuildOptions('zod-probe.ts', join(outDir, 'zod-probe')),
      entryPoints: undefined,
      stdin: {
        contents: [
          "import { z } from 'zod';",
          'const issue = z.object({ name: z.string() }).safeParse({ name: 1 }).error?.issues[0];',
          'console.log(JSON.stringify({ message: issue?.message, locales: Object.keys(z.locales), coreLocales: Object.keys(z.core.locales), en: typeof z.locales.en }));',
        ].join('\n'),
        resolveDir: root,
        sourcefile: 'zod-probe.ts',
        loader: 'ts',
      },
      absWorkingDir: root,
    });
    const inputs = Object.keys(result.metafile!.inputs);
    // zod's own locales index (which imports them all) and every locale but en stay out.
    expect(inputs.filter((f) => /^node_modules\/zod\/v4\/locales\/(?!en\.js$)/.test(f))).toEqual([]);
    expect(inputs).toContain('node_modules/zod/v4/locales/en.js');
    const { stdout } = await run(process.execPath, [outfile]);
    expect(JSON.parse(stdout)).toEqual({
      message: 'Invalid input: expected string, received number',
      locales: ['en'],
      coreLocales: ['en'],
      en: 'function',
    });
  });
});
