import * as z from 'zod';

/** A job of a workflow run as the code host's REST API describes it (`job`), the fields an agent acts on. */
export const workflowJob = () =>
  z.object({
    id: z.number().int().describe('Give it as job_id to Get Job Logs'),
    run_id: z.number().int(),
    run_attempt: z.number().int().optional(),
    name: z.string(),
    workflow_name: z.string().nullable().optional(),
    status: z.string().describe('queued, in_progress, completed, waiting, requested or pending'),
    conclusion: z.string().nullable().describe('success, failure, cancelled, skipped, timed_out, ... once completed'),
    head_sha: z.string().optional(),
    head_branch: z.string().nullable().optional(),
    html_url: z.string().nullable().optional(),
    started_at: z.string().optional(),
    completed_at: z.string().nullable().optional(),
    runner_name: z.string().nullable().optional(),
    labels: z.array(z.string()).optional(),
    steps: z
      .array(
        z.object({
          name: z.string(),
          number: z.number().int(),
          status: z.string(),
          conclusion: z.string().nullable(),
          started_at: z.string().nullable().optional(),
          completed_at: z.string().nullable().optional(),
        }),
      )
      .optional()
      .describe('Its steps in order: a failed job names the step that failed'),
  });
