import { closeSync, existsSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod';
import { AppError } from '../../domain/errors';
import { present } from '../../domain/present';

/** The full state of one message, as the journal records it. */
export interface StoredMessage {
  id: string;
  body: string;
  /** When it first entered a queue (epoch ms). */
  sentAt: number;
  /** Hidden until this time (epoch ms): delay or visibility timeout. */
  visibleAt: number;
  receiveCount: number;
  /** Receipt handle of the latest receive; only that one may delete the message. */
  receipt?: string;
  /** Its tenant (OutgoingMessage.group): receives take the groups in turn. */
  group?: string;
  /** Tries its event had before this copy was sent (OutgoingMessage.attempts). */
  attempts?: number;
}

const message = z.object({
  id: z.string(),
  body: z.string(),
  sentAt: z.number(),
  visibleAt: z.number(),
  receiveCount: z.number().int().min(0),
  receipt: z.string().optional(),
  group: z.string().optional(),
  attempts: z.number().int().min(0).optional(),
});

const record = z.discriminatedUnion('t', [
  z.object({ t: z.literal('put'), m: message }),
  z.object({ t: z.literal('recv'), id: z.string(), r: z.string(), v: z.number(), c: z.number().int() }),
  z.object({ t: z.literal('vis'), id: z.string(), v: z.number() }),
  z.object({ t: z.literal('del'), id: z.string() }),
]);

export type JournalRecord = z.infer<typeof record>;

/** Applies one record to the in-memory state (used by replay and by live writes alike). */
export function applyRecord(state: Map<string, StoredMessage>, rec: JournalRecord): void {
  switch (rec.t) {
    case 'put':
      // Re-inserting moves the message to the back, as a fresh send would.
      state.delete(rec.m.id);
      state.set(rec.m.id, { ...rec.m });
      return;
    case 'recv': {
      const m = state.get(rec.id);
      if (m) Object.assign(m, { receipt: rec.r, visibleAt: rec.v, receiveCount: rec.c });
      return;
    }
    case 'vis': {
      const m = state.get(rec.id);
      if (m) m.visibleAt = rec.v;
      return;
    }
    case 'del':
      state.delete(rec.id);
  }
}

/** How the journal flushes a descriptor to disk (node's `fs.fsync`; tests may hold it). */
export type SyncFn = (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void;

/**
 * An append-only journal of JSON lines. Each record is written with one `writeSync` on an
 * open descriptor, so it is in the OS before the call returns and survives a process kill.
 * `durable()` waits until it is on disk as well (survives a power cut), with one fsync for
 * every record appended meanwhile (group commit: many concurrent sends, one flush). Opening
 * replays the journal and rewrites it compacted, which also drops a line torn by a kill
 * mid-write.
 */
export class QueueJournal {
  private fd: number;
  /** Records appended since the last compaction. */
  appended = 0;
  /** Records appended since opening, and how many of them are known to be on disk. */
  private written = 0;
  private synced = 0;
  private syncing = false;
  /** Descriptors replaced by a compaction while a flush on them was running. */
  private readonly retired: number[] = [];
  private readonly waiting: Array<{ upTo: number; resolve: () => void; reject: (e: Error) => void }> = [];

  private constructor(
    readonly path: string,
    fd: number,
    private readonly sync: SyncFn,
  ) {
    this.fd = fd;
  }

  /** Opens (creating if needed) the journal at `path` and returns the replayed state. */
  static open(path: string, sync: SyncFn = fsync): { journal: QueueJournal; state: Map<string, StoredMessage> } {
    mkdirSync(dirname(path), { recursive: true });
    const state = new Map<string, StoredMessage>();
    if (existsSync(path)) {
      const lines = readFileSync(path, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (line.trim() === '') return;
        const rec = parseLine(line);
        if (rec) {
          applyRecord(state, rec);
          return;
        }
        // Only the last line can be torn by a kill; anything else is damage we must not hide.
        if (i < lines.length - 1 && lines.slice(i + 1).some((l) => l.trim() !== '')) {
          throw new AppError('internal', `Queue journal ${path} is corrupt at line ${i + 1}`);
        }
      });
    }
    const journal = new QueueJournal(path, -1, sync);
    journal.fd = journal.rewrite(state);
    return { journal, state };
  }

  append(rec: JournalRecord): void {
    if (this.fd < 0) throw new AppError('unavailable', `Queue journal ${this.path} is closed`);
    writeSync(this.fd, `${JSON.stringify(rec)}\n`);
    this.appended++;
    this.written++;
  }

  /** Resolves once every record appended so far is on disk. */
  durable(): Promise<void> {
    const upTo = this.written;
    if (this.synced >= upTo) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ upTo, resolve, reject });
      this.flush();
    });
  }

  /** Replaces the journal with one `put` per live message (write temp, fsync, rename). */
  compact(state: Map<string, StoredMessage>): void {
    const old = this.fd;
    this.fd = this.rewrite(state);
    // The rewrite is on disk, so is everything appended before it. A flush still running
    // on the old descriptor closes it when it ends.
    this.synced = this.written;
    if (old >= 0 && !this.syncing) closeSync(old);
    else if (old >= 0) this.retired.push(old);
    this.settle(undefined);
  }

  close(): void {
    if (this.fd >= 0) {
      fsyncSync(this.fd);
      this.synced = this.written;
      if (this.syncing) this.retired.push(this.fd);
      else closeSync(this.fd);
    }
    this.fd = -1;
    this.settle(undefined);
  }

  /** One fsync for everything appended until now; another after it if more came meanwhile. */
  private flush(): void {
    if (this.syncing || this.fd < 0 || this.waiting.length === 0) return;
    this.syncing = true;
    const fd = this.fd;
    const upTo = this.written;
    this.sync(fd, (err) => {
      this.syncing = false;
      for (const r of this.retired.splice(0)) closeSync(r);
      // An error on a descriptor retired meanwhile does not matter: its records were rewritten and synced.
      if (!err || fd !== this.fd) this.synced = Math.max(this.synced, upTo);
      this.settle(err && fd === this.fd ? err : undefined);
      this.flush();
    });
  }

  private settle(err: Error | undefined): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const w = present(this.waiting[i], `flush waiter ${i}`);
      if (w.upTo <= this.synced) w.resolve();
      else if (err) w.reject(new AppError('unavailable', `Queue journal ${this.path} could not be flushed to disk: ${err.message}`));
      else continue;
      this.waiting.splice(i, 1);
    }
  }

  private rewrite(state: Map<string, StoredMessage>): number {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      const lines = [...state.values()].map((m) => `${JSON.stringify({ t: 'put', m } satisfies JournalRecord)}\n`);
      if (lines.length > 0) writeSync(fd, lines.join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    syncDir(dirname(this.path));
    this.appended = 0;
    return openSync(this.path, 'a', 0o600);
  }
}

/** Makes a rename in `dir` survive a power cut (a no-op where directories cannot be opened). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported on this platform: the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function parseLine(line: string): JournalRecord | undefined {
  try {
    const parsed = record.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
