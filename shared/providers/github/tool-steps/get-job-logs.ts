import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import { githubTimeoutMs } from '../github-base';
import { fetchLogWindow, type LogWindow, logHostAllowed } from '../job-log-window';
import { githubStep, needs, positiveInt, repoInput, repositoryOf } from './common';

/** The default window (the end of a log is where a failure is) and the largest one asked for. */
const defaultWindow = 32 * 1024;
const maxWindow = 256 * 1024;
/** Read through at most this much of a log whose host ignores byte ranges. */
const maxScanBytes = 64 * 1024 * 1024;

const input = () =>
  z.strictObject({
    ...repoInput,
    job_id: positiveInt('The id of the job (from List Jobs For Workflow Run)'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Byte offset to read from (`next_offset` or `previous_offset` of an earlier answer); leave out for the end of the log'),
    max_bytes: z
      .number()
      .int()
      .min(1)
      .max(maxWindow)
      .default(defaultWindow)
      .describe(`How many bytes of the log to return (default ${defaultWindow}, at most ${maxWindow})`),
  });

function answer(jobId: number, w: LogWindow, text: string) {
  const atEnd = w.total !== null && w.end >= w.total;
  return {
    job_id: jobId,
    start: w.start,
    end: w.end,
    total_bytes: w.total,
    text,
    previous_offset: w.start > 0 ? Math.max(0, w.start - (w.end - w.start || defaultWindow)) : null,
    next_offset: atEnd || w.end === w.start ? null : w.end,
  };
}

export const getJobLogs = githubStep({
  id: 'github.get_job_logs',
  title: 'Get Job Logs',
  toolset: 'actions',
  description: `Returns a window of a workflow job's log as text: by default its last ${defaultWindow / 1024} KB, where a failure is reported; \`previous_offset\` and \`next_offset\` read the windows before and after. Use List Jobs For Workflow Run first to find the failed job's id.`,
  output: () =>
    z.object({
      job_id: z.number().int(),
      start: z.number().int().describe('Byte offset of the first byte returned'),
      end: z.number().int().describe('Byte offset just past the last byte returned'),
      total_bytes: z.number().int().nullable().describe("The log's size in bytes, when its host says"),
      text: z.string().describe('The window, decoded as UTF-8 (a character cut at either edge shows as U+FFFD)'),
      previous_offset: z.number().int().nullable().describe('Give as `offset` to read the window before this one; null at the start'),
      next_offset: z.number().int().nullable().describe('Give as `offset` to read on; null at the end of the log'),
    }),
  permissions: needs({ actions: 'read' }, 'repo'),
  input,
  repositoryOf,
  async run(args, client, ctx) {
    const { owner, repo, job_id } = args;
    // The code host answers with a redirect to a signed URL: read here, not followed by the client.
    const res = await client.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
      owner,
      repo,
      job_id,
      request: { redirect: 'manual' },
    });
    const apiBase = String(client.request.endpoint.DEFAULTS.baseUrl);
    const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
    if (!location)
      throw new AppError('upstream_error', `The code host answered ${res.status} without the log's location`, { status: res.status });
    const url = new URL(location, apiBase);
    if (!logHostAllowed(url, apiBase)) {
      throw new AppError('upstream_error', `The log's location ${url.origin} is not a log host of the code host; it was not followed`, {
        reason: 'log_host_not_allowed',
        host: url.hostname,
      });
    }
    const window = await fetchLogWindow(ctx.fetch, url, {
      offset: args.offset,
      maxBytes: args.max_bytes,
      maxScanBytes,
      timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds),
    });
    return answer(job_id, window, window.bytes.toString('utf8'));
  },
});
