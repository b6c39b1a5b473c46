import * as z from 'zod';
import { githubStep, positiveInt, repoInput, repositoryOf, withOutcome } from './common';

export const getWorkflowRun = githubStep({
  id: 'github.get_workflow_run',
  title: 'Get Workflow Run',
  description: "Returns one workflow run's details; a finished run also says its outcome in plain words.",
  outputDescription:
    'The run as the code host returns it (id, name, status, conclusion, head_branch, head_sha, html_url, ...) plus `outcome`: succeeded, failed or cancelled once status is completed, else null.',
  input: () => z.strictObject({ ...repoInput, run_id: positiveInt('The id of the workflow run') }),
  repositoryOf,
  async run(args, client) {
    const { data } = await client.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', args);
    return withOutcome(data);
  },
});
