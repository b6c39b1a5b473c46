import * as z from 'zod';
import { outcomeOf } from '../../../domain/outcome';
import { baseEvent, baseFacts, compact, occurrence, parse, type MapperTable } from './mapper';
import { envelopeSchema, userSchema } from './schemas';

/**
 * Workflow family: a run or a job completed. `event.outcome` (succeeded | failed |
 * cancelled, see outcome.ts) sits beside the code host's `conclusion`. Facts: `branch` is
 * the run's head branch, so a branches filter reads "runs on main".
 */

const runSchema = z.object({
  id: z.number(),
  name: z.string().nullish(),
  display_title: z.string().nullish(),
  run_number: z.number().nullish(),
  run_attempt: z.number().nullish(),
  event: z.string().nullish(),
  status: z.string().nullish(),
  conclusion: z.string().nullish(),
  workflow_id: z.number().nullish(),
  head_branch: z.string().nullish(),
  head_sha: z.string().nullish(),
  path: z.string().nullish(),
  html_url: z.string().nullish(),
  actor: userSchema.nullish(),
  triggering_actor: userSchema.nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  run_started_at: z.string().nullish(),
});

const jobSchema = z.object({
  id: z.number(),
  run_id: z.number(),
  run_attempt: z.number().nullish(),
  name: z.string().nullish(),
  workflow_name: z.string().nullish(),
  status: z.string().nullish(),
  conclusion: z.string().nullish(),
  head_branch: z.string().nullish(),
  head_sha: z.string().nullish(),
  html_url: z.string().nullish(),
  started_at: z.string().nullish(),
  completed_at: z.string().nullish(),
  runner_name: z.string().nullish(),
  labels: z.array(z.string()).nullish(),
});

const runPayload = envelopeSchema.extend({
  workflow_run: runSchema,
  workflow: z.object({ id: z.number(), name: z.string().nullish(), path: z.string().nullish() }).nullish(),
});
const jobPayload = envelopeSchema.extend({ workflow_job: jobSchema });

export const workflowMappers: MapperTable = {
  'workflow_run.completed': [
    (payload) => {
      const p = parse(runPayload, payload);
      if (!p) return [];
      const run = p.workflow_run;
      const event = {
        ...compact({ ...baseEvent(p), workflow_run: run, workflow: p.workflow }),
        conclusion: run.conclusion ?? null,
        outcome: outcomeOf(run.conclusion),
      };
      return [occurrence('workflow_run_completed', event, compact({ ...baseFacts(p), branch: run.head_branch ?? undefined }))];
    },
  ],
  'workflow_job.completed': [
    (payload) => {
      const p = parse(jobPayload, payload);
      if (!p) return [];
      const job = p.workflow_job;
      const event = {
        ...compact({ ...baseEvent(p), workflow_job: job }),
        conclusion: job.conclusion ?? null,
        outcome: outcomeOf(job.conclusion),
      };
      return [occurrence('workflow_job_completed', event, compact({ ...baseFacts(p), branch: job.head_branch ?? undefined }))];
    },
  ],
};
