import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileBlobStore } from '../../shared/adapters/local/file-blob-store';
import { InvalidInputError } from '../../shared/domain/errors';

let root: string;
let dir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'blobs-'));
  dir = join(root, 'blobs');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('local file blob store', () => {
  it('round-trips bytes under nested keys, and deletes them', async () => {
    const blobs = new FileBlobStore(dir);
    const body = Buffer.from([0, 1, 2, 255, 10, 13]);
    await blobs.put('events/2026-11-22/d-1.json', body);
    expect(await blobs.get('events/2026-11-22/d-1.json')).toEqual(body);
    await blobs.put('events/2026-11-22/d-1.json', Buffer.from('replaced'));
    expect((await blobs.get('events/2026-11-22/d-1.json'))?.toString()).toBe('replaced');
    await blobs.delete('events/2026-11-22/d-1.json');
    expect(await blobs.get('events/2026-11-22/d-1.json')).toBeUndefined();
    await blobs.delete('events/never');
  });

  it('survives a new instance on the same directory', async () => {
    await new FileBlobStore(dir).put('a', Buffer.from('kept'));
    expect((await new FileBlobStore(dir).get('a'))?.toString()).toBe('kept');
  });

  it.each(['../escape', 'a/../../escape', '/etc/passwd', 'a/./b', 'a//b', '', '..', 'a\\..\\b', 'a\u0000b', 'x.tmp'])(
    'refuses the key %j',
    async (key) => {
      const blobs = new FileBlobStore(dir);
      await expect(blobs.put(key, Buffer.from('x'))).rejects.toBeInstanceOf(InvalidInputError);
      await expect(blobs.get(key)).rejects.toBeInstanceOf(InvalidInputError);
      await expect(blobs.delete(key)).rejects.toBeInstanceOf(InvalidInputError);
      expect(existsSync(join(root, 'escape'))).toBe(false);
    },
  );
});
