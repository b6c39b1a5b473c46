import * as z from 'zod';
import { githubStep, needs, pageInput, pagesOf, positiveInt, repoInput, repositoryOf, withOutcome } from './common';
import { listed, outcome } from './outputs';
import { workflowJob } from './workflow-job-output';

type Job = { status?: string | null; conclusion?: string | null };

export const listJobsForWorkflowRun = githubStep({
  id: 'github.list_jobs_for_workflow_run',
  title: 'List Jobs For Workflow Run',
  toolset: 'actions',
  description:
    "Lists the jobs of a workflow run with each job's status, conclusion and steps: the way to find which job (and which step) failed before reading its log with Get Job Logs. Get Workflow Run gives the run itself.",
  output: () =>
    listed(workflowJob().extend({ outcome: outcome() })).extend({
      total_count: z.number().int().optional().describe('Jobs in the run, as the code host counts them'),
    }),
  permissions: needs({ actions: 'read' }, 'repo'),
  input: () =>
    z.strictObject({
      ...repoInput,
      run_id: positiveInt('The id of the workflow run'),
      filter: z
        .enum(['latest', 'all'])
        .default('latest')
        .describe('latest: the jobs of the latest attempt (default); all: of every attempt'),
      ...pageInput,
    }),
  repositoryOf,
  async run(args, client) {
    const jobs = await pagesOf<Job>('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', 'jobs')(args, client);
    return { ...jobs, items: jobs.items.map(withOutcome) };
  },
});
