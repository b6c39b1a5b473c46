import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, isAbsolute } from 'node:path';

/** The file in DATA_DIR that names the runtime using it. */
export const lockFileName = 'runtime.lock';

/** Another live runtime holds the data directory: the embedded database takes one process only. */
export class DataDirInUseError extends Error {
  readonly code = 'data_dir_in_use';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`the data directory ${shown(dataDir)} is in use by pid ${pid}; set DATA_DIR to run another`);
    this.name = 'DataDirInUseError';
  }
}

/** A path under the working directory as the user would type it (`.data`); any other as it is. */
function shown(dataDir: string): string {
  const rel = relative(process.cwd(), dataDir);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : dataDir;
}

/**
 * Whether a process with this pid still runs (EPERM: it exists, owned by someone else). A
 * process killed but not yet reaped by its parent (a zombie, state Z; X while being reaped)
 * still answers signal 0, yet it holds nothing: its files and LevelDB's lock went with it.
 * Where /proc is there, its state says so; elsewhere signal 0 is all there is.
 */
export function alive(pid: number): boolean {
  const state = procState(pid);
  if (state === 'Z' || state === 'X' || state === 'x') return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The state letter of /proc/<pid>/stat (after the command name, which may itself hold ')'), or undefined without /proc. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 1).trim()[0];
  } catch {
    return undefined;
  }
}

function readPid(path: string): number | undefined {
  try {
    // A lock file is a pid and a newline; anything longer is not ours to trust.
    const text = readFileSync(path, 'utf8').slice(0, 32).trim();
    return /^\d{1,10}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it still names this process; safe to call twice. */
  release(): void;
}

/**
 * Takes DATA_DIR for this process: `runtime.lock` holds the pid. It is written aside and
 * linked into place, so the lock never exists without its pid and only one of two starts
 * gets it. A lock naming a live process other than this one refuses the start
 * (DataDirInUseError); a lock of a dead pid (a runtime killed with SIGKILL, a crash, also
 * while its parent has not reaped it yet) or an unreadable one is taken over. A takeover first renames the stale lock aside: of two starts
 * taking over at once, the one that finds it has moved a live runtime's fresh lock puts it back.
 */
export function acquireDataDirLock(dataDir: string, pid = process.pid): DataDirLock {
  const path = join(dataDir, lockFileName);
  const mine = `${path}.${pid}.new`;
  writeFileSync(mine, `${pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(mine, path);
        return held(path, pid);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = readPid(path);
      if (holder !== undefined && holder !== pid && alive(holder)) throw new DataDirInUseError(dataDir, holder);
      const aside = `${path}.${pid}.stale`;
      try {
        renameSync(path, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const moved = readPid(aside);
      if (moved !== undefined && moved !== pid && alive(moved)) {
        // Another start took the stale lock over between our read and our rename: it is theirs.
        try {
          linkSync(aside, path);
        } catch {
          // A third start holds it now; either way it is not ours.
        }
        rmSync(aside, { force: true });
        throw new DataDirInUseError(dataDir, moved);
      }
      rmSync(aside, { force: true });
    }
  } finally {
    rmSync(mine, { force: true });
  }
  const holder = readPid(path);
  throw holder !== undefined ? new DataDirInUseError(dataDir, holder) : new Error(`could not take the lock ${path}`);
}

function held(path: string, pid: number): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    // Another runtime may have taken over a lock it judged stale: never remove its lock.
    if (readPid(path) !== pid) return;
    rmSync(path, { force: true });
  };
  // An exit that skips the runtime's close (process.exit on a second Ctrl-C) still releases it.
  process.on('exit', release);
  return { path, release };
}
