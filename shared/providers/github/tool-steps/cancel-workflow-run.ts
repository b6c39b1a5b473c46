import * as z from 'zod';
import { describeRequest, dryRun, githubStep, needs, positiveInt, repoInput, repositoryOf } from './common';

export const cancelWorkflowRun = githubStep({
  id: 'github.cancel_workflow_run',
  title: 'Cancel Workflow Run',
  toolset: 'actions',
  description:
    'Asks the code host to cancel a queued or running workflow run; the run stops shortly after (its conclusion becomes cancelled). A finished run cannot be cancelled (conflict).',
  output: () => z.object({ run_id: z.number().int(), cancel_requested: z.literal(true) }),
  permissions: needs({ actions: 'write' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, run_id: positiveInt('The id of the workflow run'), dryRun }),
  destructive: true,
  repositoryOf,
  async run({ dryRun: dry, ...args }, client) {
    if (dry) return describeRequest(client, 'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', args);
    await client.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', args);
    return { run_id: args.run_id, cancel_requested: true };
  },
});
