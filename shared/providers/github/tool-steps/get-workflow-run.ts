import * as z from 'zod';
import { githubStep, positiveInt, repoInput, repositoryOf, withOutcome, needs } from './common';
import { outcome, workflowRun } from './outputs';

export const getWorkflowRun = githubStep({
  id: 'github.get_workflow_run',
  title: 'Get Workflow Run',
  toolset: 'actions',
  description: "Returns one workflow run's details; a finished run also says its outcome in plain words.",
  output: () => workflowRun().extend({ outcome: outcome() }),
  permissions: needs({ actions: 'read' }, 'repo'),
  input: () => z.strictObject({ ...repoInput, run_id: positiveInt('The id of the workflow run') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', args);
    return withOutcome(data);
  },
});
