import type { Connection, Provider } from '../domain/model';
import type { AppContext } from '../ports/app-context';

/** What the provider said is left of the token's hourly budget, when it said. */
export interface RateBudget {
  remaining: number;
  /** Epoch seconds when the budget is whole again. */
  resetAt?: number;
}

/**
 * One unit of a polling round: one read (a list shared by several subscriptions, or one
 * subscription's own pages) that a worker polls on its own. It is plain JSON: the planner
 * sends it in a work item and a worker takes it, maybe in another process.
 */
export interface PollUnit {
  provider: Provider;
  connectionId: string;
  /** Stable from round to round: the planner's order and the logs' name for it. */
  key: string;
  /** How many subscriptions the unit serves. */
  subscriptions: number;
  /** What to read, in the provider's own terms; the provider validates it when it polls. */
  spec: unknown;
}

export interface UnitOutcome {
  /** Events enqueued, or `not_modified` when nothing changed. */
  result: number | 'not_modified';
  rate?: RateBudget;
}

/** What the units of one batch share: a read made once per batch (a connection's cursors), not once per unit. */
export interface PollBatch {
  once<T>(key: string, read: () => Promise<T>): Promise<T>;
}

/** A provider's polled sources: the units of a round, and how one is read. */
export interface PollSources {
  /** Every unit this provider polls now. */
  plan(ctx: AppContext): Promise<PollUnit[]>;
  /**
   * Reads one unit of a connected connection and enqueues what is new. A spent token budget
   * throws an `AppError` coded `rate_limited`: the connection's other units wait for a later round.
   */
  poll(ctx: AppContext, connection: Connection, unit: PollUnit, batch: PollBatch): Promise<UnitOutcome>;
}

/** What a provider adds to a polling round. */
export interface ProviderPolling {
  sources?: PollSources;
  /** Once a round, beside the units: what the provider's webhooks may have missed. Answers the events enqueued. */
  recover?(ctx: AppContext): Promise<number>;
}

declare module '../ports/provider-contract' {
  interface ProviderContract {
    polling?: ProviderPolling;
  }
}

/** A batch's shared reads, each made once. */
export function batchMemo(): PollBatch {
  const held = new Map<string, Promise<unknown>>();
  return {
    once<T>(key: string, read: () => Promise<T>): Promise<T> {
      let p = held.get(key) as Promise<T> | undefined;
      if (!p) {
        p = read();
        held.set(key, p);
      }
      return p;
    },
  };
}
