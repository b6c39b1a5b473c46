import type { TriggerEvent } from '../domain/model';
import type { InboundMessage } from '../ports';
import type { AppContext } from '../ports/app-context';
import type { Lane } from './lane';
import type { Settlement } from './settlement';

/**
 * A kind of job a provider puts on the dispatch queue beside the trigger events (the second
 * half of a delivery the intake could only accept): told apart by the `kind` member of the
 * message's JSON body, worked by `work`, settled like any message (settlement.ts).
 */
export interface JobKind {
  /** The value of the body's `kind` member; unique across providers. */
  kind: string;
  work(ctx: AppContext, m: InboundMessage, lane: Lane): Promise<Settlement>;
  /**
   * What an operator is shown of such a job left in the dead-letter queue (its trigger, and
   * what stands for its delivery); undefined when the body is not one it can read.
   */
  describe?(body: unknown): { trigger: string; deliveryId: string } | undefined;
}

/** What a follow-up made of an event: deliver it as it is, or it is handled (nothing to deliver). */
export type FollowUpVerdict = 'deliver' | 'handled';

/**
 * What a provider's delivery alone could not settle, finished by a read of the provider
 * before the event is delivered. A failure to read throws: the message is tried again with backoff.
 */
export interface FollowUpHandler {
  /** Its name, for the reader of the wiring. */
  kind: string;
  /** Whether this event needs it. */
  applies(event: TriggerEvent): boolean;
  run(ctx: AppContext, event: TriggerEvent): Promise<FollowUpVerdict>;
}

/** The providers' work that dispatch runs without knowing whose it is (the wiring lists them). */
export interface ProviderWork {
  jobs: readonly JobKind[];
  followUps: readonly FollowUpHandler[];
}

/** No jobs, no follow-ups: every message is a trigger event, delivered as it is. */
export const noProviderWork: ProviderWork = { jobs: [], followUps: [] };
