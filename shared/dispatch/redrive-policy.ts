import type { InboundMessage } from '../ports';
/**
 * How many times the dispatch queues hand a message out before they move it to the
 * dead-letter queue: SQS's redrive `maxReceiveCount` (infra/constructs/data-stores.ts) and
 * the local runtime's `maxReceives` (local/runtime.ts). A message that fails on this receive
 * is the one that gets dead-lettered.
 * Eight: an agent runtime that fails one POST in five (overloaded, not down) would
 * dead-letter one event in 3,000 after five tries, and one in 400,000 after eight; with the
 * backoff (5 s doubling) the eighth try comes about 10 minutes after the first. A runtime
 * that is down does not use up receives at all: the circuit defers its events (circuit.ts).
 */
export const maxReceiveCount = 8;

/** True when a message failing on this receive goes to the dead-letter queue next. */
export function isLastReceive(receiveCount: number, max: number = maxReceiveCount): boolean {
  return receiveCount >= max;
}

/**
 * The message with the tries its delayed copies carried (`attempts`) folded into its receive
 * count: dispatch counts the tries of an event, and a retry's copy is a new message whose own
 * receives start over.
 */
export function withTriesCounted(m: InboundMessage): InboundMessage {
  if (!m.attempts) return m;
  const { attempts, ...rest } = m;
  return { ...rest, receiveCount: attempts + m.receiveCount };
}
