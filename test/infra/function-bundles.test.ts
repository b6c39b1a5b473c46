import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

/**
 * Each AWS SDK client package a function loads costs cold start (tens of ms each, S3 the
 * most), so every function imports only the clients its role calls (functions/<name>/deps.ts
 * with buildAwsCoreContext and the adapters it needs). `npm run bench:cold-start` measures
 * the load times; this pins which clients each bundle pulls in.
 */
const expected: Record<string, string[]> = {
  'webhook-intake': ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'client-sqs', 'lib-dynamodb'],
  dispatch: ['client-dynamodb', 'client-s3', 'client-secrets-manager', 'client-sqs', 'lib-dynamodb'],
  poller: ['client-dynamodb', 'client-secrets-manager', 'client-sqs', 'lib-dynamodb'],
  'redelivery-sweep': ['client-dynamodb', 'client-secrets-manager', 'lib-dynamodb'],
  'tool-step': ['client-dynamodb', 'client-secrets-manager', 'lib-dynamodb'],
  oauth: ['client-dynamodb', 'client-secrets-manager', 'lib-dynamodb'],
  'platform-api': ['client-dynamodb', 'client-secrets-manager', 'lib-dynamodb'],
};

async function sdkClientsOf(name: string): Promise<string[]> {
  const result = await build({
    entryPoints: [join(root, 'functions', name, 'handler.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    external: ['@aws-sdk/*'],
    write: false,
    metafile: true,
    outfile: join(root, 'cdk.out', 'bundle-check', name, 'index.mjs'),
    logLevel: 'silent',
  });
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports);
  return [...new Set(imports.filter((i) => i.external && i.path.startsWith('@aws-sdk/')).map((i) => i.path.replace('@aws-sdk/', '')))].sort();
}

describe('function bundles load only the AWS SDK clients their role uses', () => {
  for (const [name, clients] of Object.entries(expected)) {
    it(`${name}: ${clients.join(', ')}`, async () => {
      expect(await sdkClientsOf(name)).toEqual(clients);
    });
  }
});
