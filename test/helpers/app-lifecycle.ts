import { readAppLifecycleJob, runAppLifecycleJob } from '../../shared/providers/github/dispatch/app-lifecycle-job';
import type { PollableQueue } from '../../shared/ports';
import type { AppContext } from '../../shared/ports/app-context';
import type { Shot } from './seed';

type Answer = { status: number; body: Record<string, any> };

/**
 * An App webhook caller whose lifecycle deliveries are also worked: when the intake answers
 * that it queued the delivery (202 `queued`), the job is taken off the dispatch queue and
 * applied as the dispatch consumer applies it, and the caller answers what applying it
 * answered (a 5xx or a throw, answered 503, leaves the job on the queue for its retry, as the consumer does). Every other message on
 * the queue is left there, visible.
 */
export function workingLifecycle(
  t: { ctx: AppContext; queues: { queue: PollableQueue } },
  call: (shot: Shot) => Promise<Answer>,
): (shot: Shot) => Promise<Answer> {
  return async (shot) => {
    const answer = await call(shot);
    if (answer.status !== 202 || answer.body.queued !== true) return answer;
    return workQueuedLifecycle(t);
  };
}

/** Works the one lifecycle job on the queue (see `workingLifecycle`) and answers its handler's answer. */
export async function workQueuedLifecycle(t: { ctx: AppContext; queues: { queue: PollableQueue } }): Promise<Answer> {
  const queue = t.queues.queue;
  const messages = await queue.receive(100, 30);
  let out: Answer | undefined;
  for (const m of messages) {
    const job = out === undefined ? readAppLifecycleJob(m.body) : undefined;
    if (job === undefined) {
      await queue.changeVisibility(m.receiptHandle, 0);
      continue;
    }
    // A throw is a failure to try again, as the consumer takes it (a 503 here, as the intake answered one before).
    out = await runAppLifecycleJob(t.ctx, job).catch((e: unknown) => ({
      status: 503,
      body: { error: { code: 'unavailable', message: String(e) } },
    }));
    if (out.status < 500) await queue.delete(m.receiptHandle);
    else await queue.changeVisibility(m.receiptHandle, 0);
  }
  if (out === undefined) throw new Error('the intake answered queued, but no App lifecycle job is on the queue');
  return out;
}
