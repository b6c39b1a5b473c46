import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What each layer's test files may import (see test/layers.ts). The rule is checked on
 * each file's own imports: a unit test that needs a socket, a server, a child process or
 * the embedded DynamoDB belongs in test/integration; one that starts a process, in test/e2e.
 */
const childProcess = ['node:child_process', 'child_process', '../helpers/local-process'];
const forbidden: Record<string, string[]> = {
  unit: [
    ...childProcess,
    'node:net',
    'node:http',
    'node:https',
    'node:http2',
    'node:dgram',
    'dynalite',
    '../../shared/adapters/local/embedded-dynamo',
    // Helpers that start the embedded DynamoDB, a loopback server or the local runtime.
    '../helpers/dynamo',
    '../helpers/test-context',
    '../helpers/tool-context',
    '../helpers/oauth-test-context',
    '../helpers/runtime-support',
    '../helpers/fake-http',
    '../helpers/fake-github-server',
    '../helpers/fake-contentsnare',
    '../helpers/fake-oauth-server',
    '../helpers/fake-agent-runtime',
    '../helpers/code-host-setup',
    '../helpers/platform-api-caller',
    '../helpers/oauth-connect',
  ],
  integration: childProcess,
};

const root = join(import.meta.dirname, '..');
const importsOf = (source: string) => [...source.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);
const testFiles = (layer: string) =>
  readdirSync(join(root, layer))
    // This file holds banned names as sample text, not as imports.
    .filter((f) => f.endsWith('.ts') && f !== 'layer-rules.test.ts')
    .map((f) => join(layer, f));

describe('layer rules: what a test file may import, by the folder it is in', () => {
  for (const [layer, banned] of Object.entries(forbidden)) {
    it(`no file in test/${layer} imports ${banned.join(', ')}`, () => {
      const offences = testFiles(layer).flatMap((file) =>
        importsOf(readFileSync(join(root, file), 'utf8'))
          .filter((spec) => banned.includes(spec as string))
          .map((spec) => `test/${file} imports ${spec}`),
      );
      expect(offences).toEqual([]);
    });
  }

  it('nothing in test/ imports bench/ (shared fixtures live in test/helpers; bench imports them)', () => {
    const offences = ['unit', 'integration', 'e2e', 'infra', 'helpers'].flatMap((dir) =>
      testFiles(dir)
        .filter((file) => importsOf(readFileSync(join(root, file), 'utf8')).some((spec) => /(^|\/)bench\//.test(spec ?? '')))
        .map((file) => `test/${file}`),
    );
    expect(offences).toEqual([]);
  });

  it('recognises the imports it bans (the rule cannot pass by reading nothing)', () => {
    expect(
      importsOf("import { execFile } from 'node:child_process';\nimport x from '../helpers/dynamo';\nawait import('node:http');"),
    ).toEqual(['node:child_process', '../helpers/dynamo', 'node:http']);
    expect(testFiles('unit')).toContain(join('unit', 'router.test.ts'));
  });
});
