/**
 * How many times the dispatch queue hands a message out before it moves it to the
 * dead-letter queue: SQS's redrive `maxReceiveCount` (infra/constructs/data-stores.ts) and
 * the local queue's default `maxReceives`. A message that fails on this receive is the one
 * that gets dead-lettered.
 */
export const maxReceiveCount = 5;

/** True when a message failing on this receive goes to the dead-letter queue next. */
export function isLastReceive(receiveCount: number, max: number = maxReceiveCount): boolean {
  return receiveCount >= max;
}
