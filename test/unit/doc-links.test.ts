import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenLinks, describeBroken, extractLinks, headingSlugs } from '../helpers/doc-links';

/**
 * Every relative link in the repository's Markdown (README.md, docs/, notes beside the code)
 * resolves: a moved or renamed file, or a renamed heading, fails here with file:line.
 * Reads files only (unit layer: no writes, no network).
 */
const root = join(import.meta.dirname, '..', '..');
// Installed packages, build output, local data and VCS state: not our documents.
const skipped = new Set(['node_modules', 'cdk.out', '.data', '.git']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name) || entry.isSymbolicLink()) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.isFile() && entry.name.endsWith('.md') ? [path] : [];
  });
}

describe('relative links in the Markdown documents', () => {
  it('all resolve to a file, and each #anchor into Markdown to a heading', () => {
    const files = new Map(markdownFiles(root).map((path) => [relative(root, path).replace(/\\/g, '/'), readFileSync(path, 'utf8')]));
    expect([...files.keys()]).toContain('README.md');
    expect([...files.keys()]).toContain('docs/configuration.md');
    const broken = brokenLinks(files, (path) => existsSync(join(root, path)));
    expect(describeBroken(broken), `broken links:\n${describeBroken(broken)}`).toBe('');
  });
});

describe('the link checker', () => {
  const sample = new Map([
    [
      'README.md',
      [
        '# Title',
        'See [the guide](docs/guide.md#set-up-the-stage) and [missing](docs/nope.md).',
        '[bad anchor](docs/guide.md#no-such-heading), [local](#title), [site](https://example.com/x.md)',
        '`[in code](docs/nope.md)` is not a link.',
        '```',
        '[in a fence](docs/nope.md)',
        '```',
        '[ref]: docs/gone.md',
      ].join('\n'),
    ],
    ['docs/guide.md', '# Guide\n## Set up the `stage`!\n[back](../README.md#title) [up and out](../../outside.md)\n'],
  ]);

  it('reports each broken link with its file and line, and passes the good ones', () => {
    expect(describeBroken(brokenLinks(sample, () => false))).toBe(
      [
        'README.md:2: docs/nope.md (no such file: docs/nope.md)',
        'README.md:3: docs/guide.md#no-such-heading (no heading #no-such-heading in docs/guide.md)',
        'README.md:8: docs/gone.md (no such file: docs/gone.md)',
        'docs/guide.md:3: ../../outside.md (leaves the repository)',
      ].join('\n'),
    );
  });

  it('names headings as GitHub does (markup dropped, punctuation dropped, repeats numbered)', () => {
    expect([
      ...headingSlugs('## Figures (`npm run bench`)\n### `…-dead-letters`: depth ≥ 1\n## Next\n## Next\n## 1. A token: *never*'),
    ]).toEqual(['figures-npm-run-bench', '-dead-letters-depth--1', 'next', 'next-1', '1-a-token-never']);
  });

  it('finds inline links, images and reference definitions, not code', () => {
    expect(extractLinks('a.md', '![img](x.png) [a](<b c.md> "t")\n`[no](n.md)`\n[r]: y.md').map((l) => `${l.line}:${l.target}`)).toEqual([
      '1:x.png',
      '1:b c.md',
      '3:y.md',
    ]);
  });
});
