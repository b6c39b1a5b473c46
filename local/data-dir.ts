import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * DATA_DIR holds the embedded DynamoDB, the queues, the encrypted secrets with their key and
 * the generated platform key: owner-only. The directory is made (or tightened) to 0700, and
 * every directory and file already in it to 0700 / 0600, so a data dir made by an older
 * version, or a file a library created with its own default mode, is tightened at start.
 * New files are owner-only through the process umask that `npm start` sets (main.ts).
 */
export function secureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  tighten(dataDir);
}

function tighten(dir: string): void {
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    // Symbolic links are left alone: their target may be anything, anywhere.
    if (stat.isDirectory()) tighten(path);
    else if (stat.isFile() && (stat.mode & 0o077) !== 0) chmodSync(path, 0o600);
  }
}
