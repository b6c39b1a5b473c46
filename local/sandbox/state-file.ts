import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import type * as z from 'zod';

/**
 * One JSON file of the sandbox's data directory, written atomically (a temporary file, synced,
 * then renamed over the old one: a crash leaves the old state or the new, never half of one)
 * and bounded: a state larger than `maxBytes` is not written. What is read back is checked
 * against `schema`; a file that is unreadable, too large or of another shape is moved aside
 * (`<name>.unreadable`) and the sandbox starts afresh, saying why.
 */
export class SandboxStateFile<T> {
  constructor(
    readonly path: string,
    private readonly schema: z.ZodType<T>,
    readonly maxBytes: number,
  ) {}

  /** The kept state, or why there is none to use (`problem`; absent when there is simply no file yet). */
  load(decode: (text: string) => string = (t) => t): { state?: T; problem?: string } {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    const aside = (why: string) => {
      renameSync(this.path, `${this.path}.unreadable`);
      return { problem: `${this.path}: ${why}; moved aside to ${this.path}.unreadable, starting afresh` };
    };
    if (size > this.maxBytes) return aside(`${size} bytes, over the ${this.maxBytes} kept`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(decode(readFileSync(this.path, 'utf8')));
    } catch (e) {
      return aside(`not JSON (${(e as Error).message})`);
    }
    const checked = this.schema.safeParse(parsed);
    if (!checked.success)
      return aside(
        `not a state of this version (${checked.error.issues[0]?.path.join('.') ?? ''}: ${checked.error.issues[0]?.message ?? ''})`,
      );
    return { state: checked.data };
  }

  /** Writes `text` (the encoded state) in place of the file; false, writing nothing, when it is over the bound. */
  save(text: string): boolean {
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > this.maxBytes) return false;
    const temp = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temp, this.path);
    } catch (e) {
      rmSync(temp, { force: true });
      throw e;
    }
    return true;
  }
}
