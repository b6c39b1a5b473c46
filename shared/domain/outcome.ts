/**
 * The spec's three words for how a workflow run or job ended, from the code host's
 * `conclusion`. Used by the trigger mapping (`event.outcome`) and by the workflow tool steps.
 */
export type Outcome = 'succeeded' | 'failed' | 'cancelled';

/**
 * Every conclusion the code host documents, mapped on one rule: did the work run and pass
 * (succeeded), run or try to run and not pass (failed), or not run to its end for reasons
 * that are not a failure of the work (cancelled).
 */
const byConclusion: Readonly<Record<string, Outcome>> = {
  success: 'succeeded',
  // A neutral check passes for branch protection: the code host itself treats it as a pass.
  neutral: 'succeeded',
  failure: 'failed',
  timed_out: 'failed',
  startup_failure: 'failed',
  // The run waits for a person (e.g. a fork's first run) and did not pass: report it as not passing.
  action_required: 'failed',
  cancelled: 'cancelled',
  // Skipped (its `if:` was false) and stale (superseded) runs did no work and did not fail.
  skipped: 'cancelled',
  stale: 'cancelled',
};

/**
 * The outcome of a finished run or job. A conclusion the code host has not documented (or a
 * null one on a "completed" delivery) counts as `failed`: an agent waiting for success must
 * not be told a run passed when nothing says it did.
 */
export function outcomeOf(conclusion: string | null | undefined): Outcome {
  if (conclusion === null || conclusion === undefined) return 'failed';
  return byConclusion[conclusion.toLowerCase()] ?? 'failed';
}
