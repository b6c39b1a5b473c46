import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { InvalidInputError } from '../../domain/errors';
import type { BlobStore } from '../../ports';

/** Slash-separated segments of safe characters; no `.`/`..`, no empty segment, no leading slash. */
const segment = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/**
 * The local BlobStore: one file per key under `dir`. Keys are checked so that none can name
 * a path outside `dir` (`..`, absolute paths, backslashes, NUL); writes are atomic and on
 * disk before `put` returns (a claim-check body is written before the queue message that
 * points at it, and that message is acknowledged only once flushed: the body must be too).
 */
export class FileBlobStore implements BlobStore {
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  async put(key: string, body: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${randomUUID()}.tmp`;
    const file = await open(tmp, 'w', 0o600);
    try {
      await file.writeFile(body);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
    await syncDir(dirname(path));
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    const parts = key.split('/');
    const ok = key.length <= 1024 && parts.every((p) => segment.test(p) && !p.endsWith('.tmp'));
    const path = resolve(this.root, ...parts);
    if (!ok || !path.startsWith(this.root + sep)) {
      throw new InvalidInputError(
        [{ field: 'key', message: 'must be slash-separated segments of letters, digits, ".", "_" or "-", without "." or ".." segments' }],
        'Invalid blob key',
      );
    }
    return path;
  }
}

/** Makes the rename in `dir` survive a power cut (skipped where a directory cannot be opened). */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}
