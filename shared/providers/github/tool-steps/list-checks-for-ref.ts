import * as z from 'zod';
import { collectPages, gitRef, githubStep, needs, pageInput, repoInput, repositoryOf } from './common';
import { listed } from './outputs';

const checkRun = () =>
  z.object({
    id: z.number().int(),
    name: z.string(),
    status: z.string().describe('queued, in_progress, completed, ...'),
    conclusion: z
      .string()
      .nullable()
      .optional()
      .describe('success, failure, neutral, cancelled, skipped, timed_out, action_required once completed'),
    head_sha: z.string().optional(),
    html_url: z.string().nullable().optional(),
    details_url: z.string().nullable().optional(),
    started_at: z.string().nullable().optional(),
    completed_at: z.string().nullable().optional(),
    output: z
      .object({ title: z.string().nullable().optional(), summary: z.string().nullable().optional() })
      .optional()
      .describe("The check's own report"),
    app: z.object({ slug: z.string().optional(), name: z.string().optional() }).nullable().optional(),
  });

const commitStatus = () =>
  z.object({
    context: z.string(),
    state: z.string().describe('error, failure, pending or success'),
    description: z.string().nullable().optional(),
    target_url: z.string().nullable().optional(),
    updated_at: z.string().optional(),
  });

type CheckRun = { name: string; status: string; conclusion?: string | null };
type Status = { context: string; state: string };

const failedConclusions = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'stale']);

/**
 * One verdict over check runs and commit statuses, as the code host's merge box shows it:
 * failure when any failed, pending while any runs, else success (or none when nothing reports).
 */
export function verdictOf(runs: CheckRun[], statuses: Status[]) {
  const failing = [
    ...runs.filter((r) => r.status === 'completed' && failedConclusions.has(r.conclusion ?? '')).map((r) => r.name),
    ...statuses.filter((s) => s.state === 'failure' || s.state === 'error').map((s) => s.context),
  ];
  const pending = [
    ...runs.filter((r) => r.status !== 'completed').map((r) => r.name),
    ...statuses.filter((s) => s.state === 'pending').map((s) => s.context),
  ];
  const state = failing.length > 0 ? 'failure' : pending.length > 0 ? 'pending' : runs.length + statuses.length > 0 ? 'success' : 'none';
  return { state, failing, pending };
}

export const listChecksForRef = githubStep({
  id: 'github.list_checks_for_ref',
  title: 'List Checks for Ref',
  description:
    "Answers whether CI passed on a commit: the check runs (GitHub Actions and other apps) and the commit statuses (older CI services) of a branch, tag or SHA, with one verdict (failure, pending, success, or none) and the names of the failing and pending checks. For a pull request pass its head.sha (get_pull_request). To read a failed Actions job's log use the workflow run tools.",
  output: () =>
    z.object({
      ref: z.string(),
      state: z.enum(['failure', 'pending', 'success', 'none']).describe('failure if any check or status failed, pending while any runs'),
      failing: z.array(z.string()).describe('Names of failed check runs and statuses'),
      pending: z.array(z.string()).describe('Names of check runs and statuses not finished'),
      check_runs: listed(checkRun()).extend({ total_count: z.number().int().optional() }),
      statuses: z.array(commitStatus()).describe("The latest status of each context (the code host's combined status)"),
    }),
  permissions: needs({ checks: 'read', statuses: 'read' }, 'repo'),
  toolset: 'pull_requests',
  input: () =>
    z.strictObject({
      ...repoInput,
      ref: gitRef('The commit SHA, branch or tag whose checks to read'),
      check_name: z.string().min(1).max(200).optional().describe('Only check runs of this name'),
      ...pageInput,
    }),
  repositoryOf,
  async run(args, client) {
    const { max_items, check_name, ...params } = args;
    const [runs, combined] = await Promise.all([
      collectPages<CheckRun>(
        client,
        'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
        { ...params, ...(check_name ? { check_name } : {}) },
        max_items,
        'check_runs',
      ),
      client.request('GET /repos/{owner}/{repo}/commits/{ref}/status', {
        owner: args.owner,
        repo: args.repo,
        ref: args.ref,
        per_page: 100,
      }),
    ]);
    const statuses = combined.data.statuses as Status[];
    return { ref: args.ref, ...verdictOf(runs.items, statuses), check_runs: runs, statuses };
  },
});
