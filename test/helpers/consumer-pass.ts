import type { AppContext } from '../../shared/ports/app-context';
import { dispatchBatch } from '../../shared/dispatch/dispatch-batch';
import { providerWork } from '../../shared/wiring/provider-work';
import type { PollableQueue } from '../../shared/ports';

/** One consumer pass, as the runtimes do it: receive what is visible, dispatch it, delete what succeeded. */
export async function consumerPass(ctx: AppContext, queue: PollableQueue): Promise<{ received: number; failed: number }> {
  const messages = await queue.receive(10, 30);
  const { failedMessageIds } = await dispatchBatch(ctx, messages, queue, { work: providerWork });
  for (const m of messages) if (!failedMessageIds.includes(m.messageId)) await queue.delete(m.receiptHandle);
  return { received: messages.length, failed: failedMessageIds.length };
}
