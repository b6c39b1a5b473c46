import * as z from 'zod';
import { collectPages, defined, gitRef, githubStep, pageInput, repoInput, repositoryOf, withOutcome, needs } from './common';
import { listed, outcome, workflowRun } from './outputs';
import { workflowId } from './workflow-id';

const statuses = [
  'completed',
  'action_required',
  'cancelled',
  'failure',
  'neutral',
  'skipped',
  'stale',
  'success',
  'timed_out',
  'in_progress',
  'queued',
  'requested',
  'waiting',
  'pending',
] as const;

const input = () =>
  z.strictObject({
    ...repoInput,
    workflow_id: workflowId.optional().describe('Only runs of this workflow (id or file name); default: every workflow'),
    actor: z.string().max(100).optional().describe('Only runs started by this login'),
    branch: gitRef('Only runs on this branch').optional(),
    event: z.string().max(100).optional().describe('Only runs started by this event, e.g. push or workflow_dispatch'),
    status: z.enum(statuses).optional().describe('Only runs with this status or conclusion'),
    created: z.string().max(100).optional().describe('Only runs created in this date range, e.g. >=2026-01-01'),
    head_sha: z
      .string()
      .regex(/^[0-9a-f]{40}$/i, 'must be a full commit SHA')
      .optional()
      .describe('Only runs of this commit'),
    ...pageInput,
  });

type Run = { status?: string | null; conclusion?: string | null };

export const listWorkflowRuns = githubStep({
  id: 'github.list_workflow_runs',
  title: 'List Workflow Runs',
  toolset: 'actions',
  description: 'Lists workflow runs of a repository (or of one workflow), newest first, following pages up to `max_items`.',
  output: () =>
    listed(workflowRun().extend({ outcome: outcome() })).extend({
      total_count: z.number().int().optional().describe('Runs matching, as the code host counts them'),
    }),
  permissions: needs({ actions: 'read' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const { max_items, workflow_id, ...params } = args;
    const listed =
      workflow_id === undefined
        ? await collectPages<Run>(client, 'GET /repos/{owner}/{repo}/actions/runs', defined(params), max_items, 'workflow_runs')
        : await collectPages<Run>(
            client,
            'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
            defined({ ...params, workflow_id }),
            max_items,
            'workflow_runs',
          );
    return { ...listed, items: listed.items.map(withOutcome) };
  },
});
