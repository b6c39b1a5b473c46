import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import type { TriggerEvent } from '../../shared/domain/model';
import type { PollableQueue } from '../../shared/ports';
import { afterAll, afterEach } from 'vitest';
import { providerWork } from '../../shared/wiring/provider-work';
import { stopTestDynamo } from './dynamo';
import { startFakeHttp, type FakeResponse, type FakeServer } from './fake-http';
import { testContext, type TestContext } from './test-context';

/**
 * An agent runtime that holds the POSTs of chosen events (an overloaded service that keeps a
 * request past its caller's limit) and answers the others at once, noting every event it
 * answered. `until` resolves once a condition on what it saw holds: the tests wait on what
 * happened, never on the wall clock.
 */
export class HoldingRuntime {
  readonly held = new Set<string>();
  readonly answered: string[] = [];
  readonly received: string[] = [];
  /** Answer of the runtime to everything it does not hold (200 by default), by event id. */
  answer: (eventId: string) => FakeResponse = () => ({ status: 200, body: { ok: true } });
  private releases: Array<() => void> = [];
  /** Requests received and not yet answered. */
  private pending = 0;
  private checks: Array<() => void> = [];
  private readonly open: TestContext[] = [];

  private constructor(readonly server: FakeServer) {}

  static async start(): Promise<HoldingRuntime> {
    let self: HoldingRuntime | undefined;
    const server = await startFakeHttp(async (req) => {
      const rt = self!;
      const id = (req.json as { id: string }).id;
      rt.pending++;
      rt.received.push(id);
      // A held request is checked once it counts in `holding`: checked before, a condition on
      // `holding` that this very request makes true would never be seen.
      if (rt.held.has(id)) {
        await new Promise<void>((r) => {
          rt.releases.push(r);
          rt.changed();
        });
      } else rt.changed();
      const answer = rt.answer(id);
      if ((answer.status ?? 200) < 300) rt.answered.push(id);
      rt.pending--;
      // After the answer is on its way: a check may look at `answered` at once.
      setImmediate(() => rt.changed());
      return answer;
    });
    self = new HoldingRuntime(server);
    return self;
  }

  get url(): string {
    return `${this.server.url}/trigger-events`;
  }

  /** Resolves when `condition` holds (checked on every request and answer). */
  until(condition: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!condition()) return;
        this.checks = this.checks.filter((c) => c !== check);
        resolve();
      };
      this.checks.push(check);
      check();
    });
  }

  /** Lets every held POST be answered, and holds no more. */
  release(): void {
    this.held.clear();
    for (const r of this.releases.splice(0)) r();
  }

  get holding(): number {
    return this.releases.length;
  }

  private changed(): void {
    for (const c of [...this.checks]) c();
  }

  /** A test context whose AGENT_RUNTIME_URL is this runtime, closed by the next `reset`. */
  async setup(): Promise<TestContext> {
    const t = await testContext({ AGENT_RUNTIME_URL: this.url });
    this.open.push(t);
    return t;
  }

  /**
   * After each test: nothing held, every request it received answered (so none is noted in the
   * next test's lists), nothing seen, 200 to everything, its contexts closed.
   */
  async reset(): Promise<void> {
    this.release();
    await this.until(() => this.pending === 0);
    this.answered.length = 0;
    this.received.length = 0;
    this.answer = () => ({ status: 200, body: { ok: true } });
    for (const t of this.open.splice(0)) t.close();
  }

  close(): Promise<void> {
    this.release();
    return this.server.close();
  }
}

/** The `n`th trigger event of one subscription, connection and agent. */
export function dispatchTestEvent(n: number): TriggerEvent {
  return {
    id: `evt_${n}`,
    trigger: 'github.new_issue',
    subscriptionId: 'sub_1',
    agentId: 'agent-1',
    connectionId: 'conn_1',
    deliveryId: `guid-${n}`,
    occurredAt: '2026-11-22T10:00:00.000Z',
    event: { issue: { number: n } },
  };
}

/** The `n`th event of the tenant `agent`: its own agent (its circuit and pace) and connection `conn_<agent>` (its group). */
export function agentEvent(agent: string, n: number): TriggerEvent {
  return { ...dispatchTestEvent(n), id: `evt_${agent}_${n}`, agentId: `agent-${agent}`, connectionId: `conn_${agent}` };
}

/** One pass of an SQS event source over `queue`: receive, dispatch on `lane`, delete what succeeded. */
export async function eventSourcePass(
  t: TestContext,
  queue: PollableQueue,
  options: Omit<Parameters<typeof dispatchBatch>[3], 'work'>,
): Promise<{ received: number; failed: string[] }> {
  const messages = await queue.receive(10, 180);
  const { failedMessageIds } = await dispatchBatch(t.ctx, messages, queue, { ...options, work: providerWork });
  for (const m of messages) if (!failedMessageIds.includes(m.messageId)) await queue.delete(m.receiptHandle);
  return { received: messages.length, failed: failedMessageIds };
}

/** A file's holding runtime: started now, cleared after each test, closed with the embedded DynamoDB after the file. */
export async function useHoldingRuntime(): Promise<HoldingRuntime> {
  const runtime = await HoldingRuntime.start();
  afterAll(async () => {
    await runtime.close();
    await stopTestDynamo();
  });
  afterEach(() => runtime.reset());
  return runtime;
}
