import * as z from 'zod';
import { githubStep, needs, positiveInt, repoInput, repositoryOf } from './common';

export const rerunFailedJobs = githubStep({
  id: 'github.rerun_failed_jobs',
  title: 'Re-run Failed Jobs',
  toolset: 'actions',
  description:
    'Re-runs the failed jobs of a finished workflow run (and the jobs that depend on them) as a new attempt of the same run; returns the run as it stands after the request, with its new attempt number. The run keeps its id: read it again with Get Workflow Run.',
  output: () =>
    z.object({
      run_id: z.number().int(),
      rerun_requested: z.literal(true),
      run_attempt: z.number().int().optional().describe('The attempt the re-run made'),
      status: z.string().nullable().optional(),
      html_url: z.string().optional(),
    }),
  permissions: needs({ actions: 'write' }, 'repo'),
  input: () =>
    z.strictObject({
      ...repoInput,
      run_id: positiveInt('The id of the workflow run'),
      enable_debug_logging: z.boolean().optional().describe('Run the jobs again with debug logging'),
    }),
  repositoryOf,
  async run(args, client) {
    const { enable_debug_logging, ...run } = args;
    await client.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
      ...run,
      ...(enable_debug_logging === undefined ? {} : { enable_debug_logging }),
    });
    // The new attempt's number is on the run, not in the (empty) answer to the re-run.
    const { data } = await client.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', run);
    return { run_id: args.run_id, rerun_requested: true, run_attempt: data.run_attempt, status: data.status, html_url: data.html_url };
  },
});
