import * as z from 'zod';
import { githubStep, repoInput, repositoryOf, needs } from './common';
import { workflowId } from './workflow-id';

export const enableWorkflow = githubStep({
  id: 'github.enable_workflow',
  title: 'Enable Workflow',
  toolset: 'actions',
  description: 'Enables a workflow so that its triggers start runs again.',
  output: () => z.object({ enabled: z.literal(true), workflow_id: z.union([z.number().int(), z.string()]) }),
  permissions: needs({ actions: 'write' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, workflow_id: workflowId }),
  repositoryOf,
  async run(args, client) {
    await client.request('PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/enable', args);
    return { enabled: true, workflow_id: args.workflow_id };
  },
});
