import { randomUUID } from 'node:crypto';
import { InvalidInputError, type FieldProblem } from '../../domain/errors';
import type { Clock, InboundMessage, OutgoingMessage, PollableQueue } from '../../ports';
import { QueueJournal, applyRecord, type JournalRecord, type StoredMessage, type SyncFn } from './queue-journal';

export interface FileQueueOptions {
  /** The journal file (created with its folder if missing). */
  path: string;
  clock: Clock;
  /** A message received this many times goes to `deadLetter` on its next receive (SQS maxReceiveCount). */
  maxReceives?: number;
  deadLetter?: FileQueue;
  /** Compact once this many records were appended (and they outnumber live messages twice). */
  compactAfter?: number;
  /** How the journal is flushed to disk (tests); node's `fs.fsync` by default. */
  sync?: SyncFn;
}

/** SQS limits, kept locally so that what works here also works on AWS. */
const maxBodyBytes = 256 * 1024;
const maxDelaySeconds = 900;

/**
 * A durable local queue with SQS semantics: delay, visibility timeout, receive count,
 * per-receive receipt handles, and a dead-letter queue after `maxReceives`.
 *
 * State lives in memory and every change is journaled (queue-journal.ts) before the call
 * returns; a send is acknowledged only once its records are on disk (fsync, shared by the
 * sends of the same moment), since an acknowledged send is what lets the intake answer the
 * code host 2xx. Other changes (receive, delete, visibility) are not waited for: losing one
 * to a power cut means a message delivered again, never one lost. Each method does all its work synchronously, so concurrent async callers in
 * this process never interleave inside one operation. One process owns the files: two
 * processes opening the same journal would overwrite each other.
 */
export class FileQueue implements PollableQueue {
  private readonly state: Map<string, StoredMessage>;
  private readonly journal: QueueJournal;
  private readonly waiters = new Set<() => void>();
  readonly maxReceives: number;

  private constructor(private readonly options: FileQueueOptions) {
    const { journal, state } = QueueJournal.open(options.path, options.sync);
    this.journal = journal;
    this.state = state;
    this.maxReceives = options.maxReceives ?? 5;
  }

  static open(options: FileQueueOptions): FileQueue {
    return new FileQueue(options);
  }

  private get now(): number {
    return this.options.clock.now();
  }

  async sendBatch(messages: OutgoingMessage[]): Promise<void> {
    checkBatch(messages);
    const now = this.now;
    for (const m of messages) {
      const visibleAt = now + (m.delaySeconds ?? 0) * 1000;
      const group = m.group === undefined ? {} : { group: m.group };
      const attempts = m.attempts ? { attempts: m.attempts } : {};
      this.write({ t: 'put', m: { id: randomUUID(), body: m.body, sentAt: now, visibleAt, receiveCount: 0, ...group, ...attempts } });
    }
    this.wake();
    await this.journal.durable();
  }

  async receive(max: number, visibilityTimeoutSeconds: number): Promise<InboundMessage[]> {
    const now = this.now;
    const out: InboundMessage[] = [];
    for (const m of this.fairVisible(now)) {
      if (out.length >= max) break;
      if (this.exhausted(m)) {
        this.deadLetter(m);
        continue;
      }
      const receipt = `${m.id}~${randomUUID()}`;
      const receiveCount = m.receiveCount + 1;
      this.write({ t: 'recv', id: m.id, r: receipt, v: now + visibilityTimeoutSeconds * 1000, c: receiveCount });
      out.push({
        messageId: m.id,
        body: m.body,
        receiptHandle: receipt,
        receiveCount,
        sentAt: m.sentAt,
        ...(m.group === undefined ? {} : { group: m.group }),
        ...(m.attempts ? { attempts: m.attempts } : {}),
      });
    }
    return out;
  }

  /** Like SQS, a stale receipt handle (the message was received again since) deletes nothing. */
  async delete(receiptHandle: string): Promise<void> {
    const m = this.byReceipt(receiptHandle);
    if (m) this.write({ t: 'del', id: m.id });
  }

  /**
   * Postpones (or, with 0, releases) a message in flight; a stale receipt handle changes nothing.
   * A message on its last receive goes to the dead-letter queue now: its next receive would
   * move it there and nothing else, so waiting out the postponement (the backoff of a last
   * try, up to 15 minutes) would only keep it out of the operator's sight while the event's
   * history already says `dead_lettered`.
   */
  async changeVisibility(receiptHandle: string, seconds: number): Promise<void> {
    const m = this.byReceipt(receiptHandle);
    if (!m) return;
    if (this.exhausted(m)) {
      this.deadLetter(m);
      return;
    }
    this.write({ t: 'vis', id: m.id, v: this.now + seconds * 1000 });
    if (seconds <= 0) this.wake();
  }

  /**
   * Resolves when a message may be visible: at once if one is, when one is sent or
   * released, when the next hidden one's time comes, or after `maxWaitMs` at the latest.
   * Lets a consumer loop sleep without busy polling and still deliver promptly.
   */
  waitForMessages(maxWaitMs: number): Promise<void> {
    const now = this.now;
    let next = Infinity;
    for (const m of this.state.values()) next = Math.min(next, m.visibleAt);
    if (next <= now) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(maxWaitMs, next - now)));
      this.waiters.add(done);
    });
  }

  /** Messages in the queue, visible or not. */
  size(): number {
    return this.state.size;
  }

  /**
   * Messages received and not yet visible again (SQS's ApproximateNumberOfMessagesNotVisible):
   * what counts against SQS's in-flight limit. A delayed message that was never received is
   * not in flight.
   */
  inFlight(): number {
    const now = this.now;
    let n = 0;
    for (const m of this.state.values()) if (m.receipt !== undefined && m.visibleAt > now) n++;
    return n;
  }

  close(): void {
    this.journal.close();
    this.wake();
  }

  /** The oldest `max` messages, unchanged (the dead-letter view lists with this). */
  peek(max: number): StoredMessage[] {
    return [...this.state.values()].slice(0, max).map((m) => ({ ...m }));
  }

  /** Takes in a message moved from another queue (dead-lettering, redrive), keeping its id. */
  accept(m: StoredMessage): void {
    this.write({ t: 'put', m: { ...m, receipt: undefined } });
    if (m.visibleAt <= this.now) this.wake();
  }

  /** Removes a message by id; false when it is not here. */
  remove(id: string): boolean {
    if (!this.state.has(id)) return false;
    this.write({ t: 'del', id });
    return true;
  }

  /**
   * The visible messages, oldest first within a group and the groups taken in turn (one of
   * each, then the second of each ...), as SQS fair queues serve a standard queue: a tenant
   * with a backlog of thousands gets the same share of a receive as one with a single message.
   */
  private *fairVisible(now: number): Generator<StoredMessage> {
    const groups = new Map<string | undefined, StoredMessage[]>();
    for (const m of this.state.values()) {
      if (m.visibleAt > now) continue;
      const list = groups.get(m.group);
      if (list) list.push(m);
      else groups.set(m.group, [m]);
    }
    const queues = [...groups.values()];
    for (let i = 0; queues.length > 0; i++) {
      for (let g = 0; g < queues.length; ) {
        const m = queues[g]?.[i];
        if (m === undefined) queues.splice(g, 1);
        else {
          yield m;
          g++;
        }
      }
    }
  }

  /** Received as many times as allowed: a dead letter from now on (when there is a dead-letter queue). */
  private exhausted(m: StoredMessage): boolean {
    return this.options.deadLetter !== undefined && m.receiveCount >= this.maxReceives;
  }

  private deadLetter(m: StoredMessage): void {
    // Into the DLQ first, then out of here: a kill in between leaves a duplicate, never a loss.
    this.options.deadLetter?.accept({ ...m, receipt: undefined, visibleAt: this.now });
    this.write({ t: 'del', id: m.id });
  }

  private byReceipt(receiptHandle: string): StoredMessage | undefined {
    const id = receiptHandle.slice(0, Math.max(0, receiptHandle.lastIndexOf('~')));
    const m = this.state.get(id);
    return m && m.receipt === receiptHandle ? m : undefined;
  }

  private write(rec: JournalRecord): void {
    this.journal.append(rec);
    applyRecord(this.state, rec);
    const limit = this.options.compactAfter ?? 1000;
    if (this.journal.appended > limit && this.journal.appended > 2 * this.state.size) this.journal.compact(this.state);
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

function checkBatch(messages: OutgoingMessage[]): void {
  const problems: FieldProblem[] = [];
  const ids = new Set<string>();
  messages.forEach((m, i) => {
    if (ids.has(m.id)) problems.push({ field: `messages.${i}.id`, message: 'must be unique within the batch' });
    ids.add(m.id);
    const bytes = Buffer.byteLength(m.body, 'utf8');
    if (bytes === 0 || bytes > maxBodyBytes) problems.push({ field: `messages.${i}.body`, message: `must be 1 to ${maxBodyBytes} bytes` });
    const d = m.delaySeconds ?? 0;
    if (!Number.isInteger(d) || d < 0 || d > maxDelaySeconds)
      problems.push({ field: `messages.${i}.delaySeconds`, message: `must be an integer 0..${maxDelaySeconds}` });
  });
  if (problems.length > 0) throw new InvalidInputError(problems, 'Invalid queue batch');
}
