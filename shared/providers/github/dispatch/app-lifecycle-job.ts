import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { readJob } from '../../../dispatch/job-message';
import type { JobKind } from '../../../dispatch/provider-work';
import { onAppAuthorizationEvent } from '../app/lifecycle/app-authorization-event';
import { onInstallationEvent } from '../app/lifecycle/installation-event';
import { installationPayload, listedRepository } from '../app/lifecycle/installation-payload';
import { onInstallationRepositoriesEvent } from '../app/lifecycle/installation-repositories-event';
import type { LifecycleAnswer } from '../app/lifecycle/lifecycle-answer';
import type { OutgoingMessage } from '../../../ports';
import type { AppContext } from '../../../ports/app-context';

/**
 * The second half of a GitHub App lifecycle delivery (`installation`,
 * `installation_repositories`, `github_app_authorization`): the intake, which holds no
 * code-host credential, claims the delivery and queues this job; the dispatch consumer works
 * it with the App's key, the installation's token and the users' tokens (the read-backs of
 * the installation, the whole-list read, the per-user re-check of repositories added). An
 * answer below 500 is applied (or refused for good); a 5xx or a throw is tried again with the
 * lane's backoff and, after the queue's last receive, dead-lettered with the other messages.
 */

export const appLifecycleKind = 'github_app.lifecycle';

export const appLifecycleEvents = ['installation', 'installation_repositories', 'github_app_authorization'] as const;
export type AppLifecycleEvent = (typeof appLifecycleEvents)[number];

/** Repositories a job carries per list, as the handler reads them (their names only). */
const maxListed = 5_000;
/** Under the queue's 256 KiB message limit, with room for the envelope. */
export const maxJobBytes = 240_000;

/** Only what the handlers read of the delivery: unknown keys are dropped, arrays bounded. */
const payloadSchema = z.object({
  action: z.string().max(100),
  installation: installationPayload.optional(),
  repository_selection: z.enum(['all', 'selected']).optional(),
  repositories_added: z.array(listedRepository).max(maxListed).optional(),
  repositories_removed: z.array(listedRepository).max(maxListed).optional(),
  sender: z.object({ id: z.number().int().positive() }).optional(),
});

const jobSchema = z
  .object({
    kind: z.literal(appLifecycleKind),
    event: z.enum(appLifecycleEvents),
    deliveryId: z.string().max(200),
    payload: payloadSchema,
  })
  .strict();

export type AppLifecycleJob = z.infer<typeof jobSchema>;

export type NewJob = { kind: 'job'; job: AppLifecycleJob } | { kind: 'misfit'; fields: string };

/** The job of a delivery, or the fields that do not fit (its handler would refuse it the same way). */
export function newAppLifecycleJob(event: AppLifecycleEvent, deliveryId: string, payload: unknown): NewJob {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success)
    return { kind: 'misfit', fields: [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(body)'))].join(', ') };
  return { kind: 'job', job: { kind: appLifecycleKind, event, deliveryId, payload: parsed.data } };
}

/** The queue message of a job. */
export function appLifecycleMessage(job: AppLifecycleJob): OutgoingMessage {
  // Grouped by installation, the tenant of these jobs (fair queues: tenant.ts in dispatch).
  const installation = job.payload.installation?.id;
  return { id: `al-${randomUUID()}`, body: JSON.stringify(job), ...(installation ? { group: `installation-${installation}` } : {}) };
}

/** Applies a job with the handler of its event. */
export function runAppLifecycleJob(ctx: AppContext, job: AppLifecycleJob): Promise<LifecycleAnswer> {
  const log = ctx.logger.child({ deliveryId: job.deliveryId, event: job.event });
  switch (job.event) {
    case 'installation':
      return onInstallationEvent(ctx, log, job.payload);
    case 'installation_repositories':
      return onInstallationRepositoriesEvent(ctx, log, job.payload);
    case 'github_app_authorization':
      return onAppAuthorizationEvent(ctx, log, job.payload);
  }
}

/**
 * The job kind dispatch works: done when its handler answered below 500; failed when it is to
 * be tried again (with the lane's backoff) or can never be read (at once, so the queue
 * dead-letters it intact).
 */
export const appLifecycleJobKind: JobKind = {
  kind: appLifecycleKind,
  async work(ctx, m, lane) {
    const read = readJob(ctx, m, jobSchema, 'App lifecycle job');
    if (!read.ok) return read.settled;
    const { job } = read;
    const log = ctx.logger.child({ messageId: m.messageId, deliveryId: job.deliveryId, event: job.event });
    let reason: string;
    try {
      const answer = await runAppLifecycleJob(ctx, job);
      if (answer.status < 500) return { kind: 'done' };
      reason = `HTTP ${answer.status}`;
      log.warn('GitHub App lifecycle job failed; it is tried again with backoff', { status: answer.status, body: answer.body });
    } catch (e) {
      reason = e instanceof Error ? e.message : String(e);
      log.warn('GitHub App lifecycle job failed; it is tried again with backoff', { error: e });
    }
    return { kind: 'failed', reason, delaySeconds: lane.backoff(m.receiveCount) };
  },
};

/** A queue message's job, or undefined when it is none (or unreadable). */
export function readAppLifecycleJob(body: string): AppLifecycleJob | undefined {
  try {
    const parsed = jobSchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
