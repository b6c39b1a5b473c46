import * as z from 'zod';
import { defaultBranch, gitRef, githubStep, repoInput, repositoryOf, needs } from './common';
import { workflowId } from './workflow-id';

const input = () =>
  z.strictObject({
    ...repoInput,
    workflow_id: workflowId,
    ref: gitRef("Branch or tag to run the workflow on (default: the repository's default branch)").optional(),
    inputs: z
      .record(z.string().min(1).max(100), z.union([z.string(), z.number(), z.boolean()]))
      .refine((v) => Object.keys(v).length <= 25, 'at most 25 inputs')
      .optional()
      .describe("Values for the workflow's `workflow_dispatch` inputs"),
  });

export const createWorkflowDispatch = githubStep({
  id: 'github.create_workflow_dispatch',
  title: 'Create Workflow Dispatch',
  toolset: 'actions',
  description: 'Starts a workflow run (the workflow must have a `workflow_dispatch` trigger).',
  output: () =>
    z.object({
      dispatched: z.literal(true),
      workflow_id: z.union([z.number().int(), z.string()]),
      ref: z.string(),
      workflow_run_id: z.number().int().optional().describe('The run started, where the code host says'),
      html_url: z.string().optional().describe('The run started, where the code host says'),
    }),
  permissions: needs({ actions: 'write' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client) {
    const ref = args.ref ?? (await defaultBranch(client, args));
    const res = await client.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      owner: args.owner,
      repo: args.repo,
      workflow_id: args.workflow_id,
      ref,
      ...(args.inputs ? { inputs: args.inputs } : {}),
    });
    // The code host answers 204 with no body, or 200 naming the run it started.
    const run = (typeof res.data === 'object' && res.data !== null ? res.data : {}) as { workflow_run_id?: unknown; html_url?: unknown };
    return { dispatched: true, workflow_id: args.workflow_id, ref, workflow_run_id: run.workflow_run_id, html_url: run.html_url };
  },
});
