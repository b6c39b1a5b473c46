import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The core never asks which provider it handles: what differs between providers is a part
 * of the provider contract (`AppContext.providers`) or lives in the provider's room,
 * `shared/providers/<id>/`. This scans the core for the tests of a provider's name or of
 * the code host's auth methods.
 */
const providerCheck =
  /provider === '|provider !== '|case 'contentsnare'|case 'github'|authMethod === '|authMethod !== '|=== 'github_app'|=== 'contentsnare'|=== 'github'/g;

/** Core files that still ask, with how many times: none is left, and none may start. */
const notYetThroughTheContract: Record<string, number> = {};

const root = join(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = posix.join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const coreFiles = ['shared', 'functions', 'local'].flatMap(sourceFiles).filter((f) => !f.startsWith('shared/providers/'));

/** Source without comments, so that a comment may name what the code must not do. */
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

const checksIn = (source: string) => withoutComments(source).match(providerCheck)?.length ?? 0;

describe('the core never asks which provider it handles', () => {
  it('no core file tests a provider name or a code-host auth method beyond the list that is left', () => {
    const asking = Object.fromEntries(
      coreFiles.map((f) => [f, checksIn(readFileSync(join(root, f), 'utf8'))] as const).filter(([, n]) => n > 0),
    );
    expect(asking).toEqual(notYetThroughTheContract);
  });

  it('finds the checks it bans (the scan cannot pass by reading nothing)', () => {
    expect(checksIn("if (connection.provider === 'github') x();\n// provider === 'github'\nswitch (p) { case 'contentsnare': }")).toBe(2);
    expect(checksIn("if (c.authMethod !== 'github_app') return;")).toBe(1);
    expect(coreFiles).toContain('shared/intake/pipeline.ts');
    expect(coreFiles.some((f) => f.startsWith('shared/providers/'))).toBe(false);
  });
});
