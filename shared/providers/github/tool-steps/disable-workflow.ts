import * as z from 'zod';
import { describeRequest, dryRun, githubStep, repoInput, repositoryOf, needs } from './common';
import { workflowId } from './workflow-id';

export const disableWorkflow = githubStep({
  id: 'github.disable_workflow',
  title: 'Disable Workflow',
  toolset: 'actions',
  description: 'Disables a workflow: none of its triggers start runs until it is enabled again.',
  output: () => z.object({ disabled: z.literal(true), workflow_id: z.union([z.number().int(), z.string()]) }),
  permissions: needs({ actions: 'write' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, workflow_id: workflowId, dryRun }),
  destructive: true,
  repositoryOf,
  async run({ dryRun: dry, ...args }, client) {
    if (dry) return describeRequest(client, 'PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/disable', args);
    await client.request('PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/disable', args);
    return { disabled: true, workflow_id: args.workflow_id };
  },
});
