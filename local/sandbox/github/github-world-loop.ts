import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse, RecordedRequest } from '../simulated-http';
import type { SimulatedGitHubWorld } from './github-world';

/**
 * The simulated code host's discussions (GraphQL: the `discussion` query, the
 * `addDiscussionComment` mutation and the comment look-up by node id) and the jobs of the
 * world's workflow runs (list, a log served with byte ranges from the host's own origin as
 * an enterprise server does, re-run of the failed jobs as a new attempt, cancel). Whatever
 * a tool does is read back: a reply is listed under its comment, a re-run raises the run's
 * attempt and its jobs pass.
 */

type Json = Record<string, unknown>;

interface Comment {
  id: string;
  body: string;
  createdAt: string;
  author: string;
  replyTo?: string;
}
interface Discussion {
  id: string;
  repo: string;
  number: number;
  title: string;
  body: string;
  author: string;
  category: string;
  createdAt: string;
  comments: Comment[];
}

const logPrefix = '/_sandbox/job-logs/';
const notFound: SimulatedResponse = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };

/** A job's log: the steps of a Node build, the failing one ending with its error. */
function logOf(job: Json): string {
  const lines: string[] = [];
  const at = String(job.started_at ?? '2026-01-01T00:00:00Z').replace('Z', '.0000000Z');
  for (const step of job.steps as Json[]) {
    lines.push(`${at} ##[group]${String(step.name)}`);
    for (let i = 0; i < 40; i++) lines.push(`${at} ${String(step.name).toLowerCase()}: line ${i + 1}`);
    lines.push(`${at} ##[endgroup]`);
    if (step.conclusion === 'failure') {
      lines.push(`${at} FAIL test/app.test.ts > adds two numbers`, `${at} ##[error]Process completed with exit code 1.`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export class SimulatedLoopWorld {
  private readonly discussions: Discussion[] = [];
  private next = 9000;

  constructor(
    private readonly world: SimulatedGitHubWorld,
    private readonly base: () => string,
    private readonly login: string,
  ) {}

  /** A discussion of `owner/repo` (as one opened there would be). */
  addDiscussion(owner: string, repo: string, d: { number: number; title: string; body: string; author?: string }): void {
    this.discussions.push({
      id: `D_kwDO${d.number}x${this.next++}`,
      repo: `${owner}/${repo}`.toLowerCase(),
      number: d.number,
      title: d.title,
      body: d.body,
      author: d.author ?? this.login,
      category: 'Q&A',
      createdAt: new Date().toISOString(),
      comments: [],
    });
  }

  /** A finished run that failed in its `test` job (a run the sandbox's CI would report). */
  addFailedRun(owner: string, repo: string, run: { id: number; name?: string; head_branch?: string; head_sha?: string }): void {
    const at = new Date().toISOString();
    this.world.workflowRun(owner, repo, run.id, {
      name: 'CI',
      head_branch: 'main',
      head_sha: 'a'.repeat(40),
      path: '.github/workflows/ci.yml',
      run_number: 1,
      run_attempt: 1,
      event: 'push',
      workflow_id: 161335,
      created_at: at,
      updated_at: at,
      ...run,
      status: 'completed',
      conclusion: 'failure',
    });
  }

  private jobs(owner: string, repo: string, run: Json): Json[] {
    const attempt = Number(run.run_attempt ?? 1);
    const failed = run.conclusion === 'failure';
    const step = (number: number, name: string, conclusion: string) => ({ name, number, status: 'completed', conclusion });
    const job = (n: number, name: string, fails: boolean): Json => ({
      id: Number(run.id) * 100 + attempt * 10 + n,
      run_id: Number(run.id),
      run_attempt: attempt,
      run_url: `${this.base()}/repos/${owner}/${repo}/actions/runs/${String(run.id)}`,
      node_id: `CR_${String(run.id)}_${n}`,
      head_sha: String(run.head_sha ?? ''),
      head_branch: run.head_branch ?? null,
      url: `${this.base()}/repos/${owner}/${repo}/actions/jobs/${Number(run.id) * 100 + attempt * 10 + n}`,
      html_url: `https://github.com/${owner}/${repo}/actions/runs/${String(run.id)}/job/${Number(run.id) * 100 + attempt * 10 + n}`,
      status: run.status === 'completed' ? 'completed' : 'in_progress',
      conclusion: run.status === 'completed' ? (fails ? 'failure' : run.conclusion === 'cancelled' ? 'cancelled' : 'success') : null,
      created_at: String(run.created_at ?? ''),
      started_at: String(run.created_at ?? ''),
      completed_at: run.status === 'completed' ? String(run.updated_at ?? '') : null,
      name,
      steps: [
        step(1, 'Set up job', 'success'),
        step(2, 'Run npm ci', 'success'),
        step(3, `Run npm run ${name}`, fails ? 'failure' : 'success'),
      ],
      check_run_url: `${this.base()}/repos/${owner}/${repo}/check-runs/${Number(run.id) * 100 + n}`,
      labels: ['ubuntu-latest'],
      runner_id: 1,
      runner_name: 'GitHub Actions 1',
      runner_group_id: 2,
      runner_group_name: 'GitHub Actions',
      workflow_name: String(run.name ?? 'CI'),
    });
    return [job(1, 'lint', false), job(2, 'test', failed)];
  }

  private jobById(owner: string, repo: string, jobId: number): Json | undefined {
    const runId = Math.floor(jobId / 100);
    const run = this.world.workflowRun(owner, repo, runId);
    return run ? this.jobs(owner, repo, run).find((j) => j.id === jobId) : undefined;
  }

  /** The job-log URLs the log answers point at: served with byte ranges, as log storage does. */
  serveLog(req: RecordedRequest): SimulatedResponse | undefined {
    if (req.method !== 'GET' || !req.path.startsWith(logPrefix)) return undefined;
    const [owner = '', repo = '', id = ''] = req.path.slice(logPrefix.length).split('/');
    const job = this.jobById(owner, repo, Number(id));
    if (!job) return { status: 404, body: 'The specified blob does not exist.' };
    const log = Buffer.from(logOf(job));
    const range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
    if (!range) return { status: 200, headers: { 'content-type': 'text/plain' }, body: log.toString('utf8') };
    const [, from = '', to = ''] = range;
    const start = from === '' ? Math.max(0, log.length - Number(to)) : Number(from);
    const end = from === '' || to === '' ? log.length - 1 : Math.min(Number(to), log.length - 1);
    if (start >= log.length) return { status: 416, headers: { 'content-range': `bytes */${log.length}` }, body: '' };
    return {
      status: 206,
      headers: { 'content-type': 'text/plain', 'content-range': `bytes ${start}-${end}/${log.length}` },
      body: log.subarray(start, end + 1).toString('utf8'),
    };
  }

  /** Answers of the operations on jobs and runs, and GraphQL (`otherGraphql` answers what is not a discussion). */
  answers(otherGraphql?: OperationResponder): Record<string, OperationResponder> {
    const run = (r: MatchedRequest) => this.world.workflowRun(r.params.owner ?? '', r.params.repo ?? '', Number(r.params.run_id));
    return {
      'actions/list-jobs-for-workflow-run': (r) => {
        const found = run(r);
        if (!found) return notFound;
        const jobs = this.jobs(r.params.owner ?? '', r.params.repo ?? '', found);
        return { body: { total_count: jobs.length, jobs } };
      },
      'actions/download-job-logs-for-workflow-run': (r) => {
        const job = this.jobById(r.params.owner ?? '', r.params.repo ?? '', Number(r.params.job_id));
        if (!job) return notFound;
        const url = `${this.base()}${logPrefix}${r.params.owner}/${r.params.repo}/${String(job.id)}?sig=sandbox`;
        return { status: 302, headers: { location: url } };
      },
      'actions/re-run-workflow-failed-jobs': (r) => {
        const found = run(r);
        if (!found) return notFound;
        if (found.status !== 'completed') return { status: 403, body: { message: 'This workflow is already running' } };
        // A new attempt of the same run; the sandbox runs nothing, so it passes at once.
        found.run_attempt = Number(found.run_attempt ?? 1) + 1;
        found.conclusion = 'success';
        found.updated_at = new Date().toISOString();
        return { status: 201, body: {} };
      },
      'actions/cancel-workflow-run': (r) => {
        const found = run(r);
        if (!found) return notFound;
        if (found.status === 'completed') return { status: 409, body: { message: 'Cannot cancel a workflow run that is completed.' } };
        found.status = 'completed';
        found.conclusion = 'cancelled';
        return { status: 202, body: {} };
      },
      graphql: (r) => this.graphql(r) ?? otherGraphql?.(r) ?? { body: { data: null } },
    };
  }

  private graphql(r: MatchedRequest): SimulatedResponse | undefined {
    const { query = '', variables = {} } = (r.json ?? {}) as { query?: string; variables?: Json };
    if (query.includes('addDiscussionComment')) return this.addComment(variables);
    if (query.includes('... on DiscussionComment')) {
      const hit = this.commentById(String(variables.id));
      const node = hit
        ? { id: hit.comment.id, discussion: { id: hit.discussion.id }, replyTo: hit.comment.replyTo ? { id: hit.comment.replyTo } : null }
        : null;
      return { body: { data: { node } } };
    }
    if (!query.includes('discussion(number')) return undefined;
    const name = `${String(variables.owner)}/${String(variables.repo)}`.toLowerCase();
    if (!this.world.hasRepository(String(variables.owner), String(variables.repo))) {
      return {
        body: {
          data: { repository: null },
          errors: [{ type: 'NOT_FOUND', path: ['repository'], message: `Could not resolve to a Repository with the name '${name}'.` }],
        },
      };
    }
    const d = this.discussions.find((x) => x.repo === name && x.number === Number(variables.number));
    if (!d) {
      return {
        body: {
          data: { repository: { discussion: null } },
          errors: [
            {
              type: 'NOT_FOUND',
              path: ['repository', 'discussion'],
              message: `Could not resolve to a Discussion with the number of ${String(variables.number)}.`,
            },
          ],
        },
      };
    }
    return {
      body: {
        data: {
          repository: { discussion: this.render(d, Number(variables.first ?? 20), Number(variables.replies ?? 10), variables.after) },
        },
      },
    };
  }

  private commentJson(c: Comment, d: Discussion): Json {
    return {
      id: c.id,
      body: c.body,
      url: `https://github.com/${d.repo}/discussions/${d.number}#discussioncomment-${c.id}`,
      createdAt: c.createdAt,
      author: { login: c.author },
      replyTo: c.replyTo ? { id: c.replyTo } : null,
    };
  }

  private render(d: Discussion, first: number, replies: number, after: unknown): Json {
    const top = d.comments.filter((c) => !c.replyTo);
    const from = typeof after === 'string' ? top.findIndex((c) => c.id === after) + 1 : 0;
    const page = top.slice(from, from + first);
    return {
      id: d.id,
      number: d.number,
      title: d.title,
      body: d.body,
      url: `https://github.com/${d.repo}/discussions/${d.number}`,
      createdAt: d.createdAt,
      updatedAt: d.comments.at(-1)?.createdAt ?? d.createdAt,
      closed: false,
      locked: false,
      isAnswered: false,
      author: { login: d.author },
      category: { name: d.category },
      comments: {
        totalCount: top.length,
        pageInfo: { hasNextPage: from + first < top.length, endCursor: page.at(-1)?.id ?? null },
        nodes: page.map((c) => {
          const thread = d.comments.filter((x) => x.replyTo === c.id);
          return {
            ...this.commentJson(c, d),
            isAnswer: false,
            replies: { totalCount: thread.length, nodes: thread.slice(0, replies).map((x) => this.commentJson(x, d)) },
          };
        }),
      },
    };
  }

  private commentById(id: string): { discussion: Discussion; comment: Comment } | undefined {
    for (const discussion of this.discussions) {
      const comment = discussion.comments.find((c) => c.id === id);
      if (comment) return { discussion, comment };
    }
    return undefined;
  }

  private addComment(variables: Json): SimulatedResponse {
    const d = this.discussions.find((x) => x.id === variables.discussion);
    if (!d)
      return { body: { data: { addDiscussionComment: null }, errors: [{ type: 'NOT_FOUND', message: 'Could not resolve to a node' }] } };
    const replyTo = typeof variables.replyTo === 'string' ? variables.replyTo : undefined;
    if (replyTo && !d.comments.some((c) => c.id === replyTo && !c.replyTo)) {
      return {
        body: {
          data: { addDiscussionComment: null },
          errors: [{ type: 'UNPROCESSABLE', message: 'Parent comment is not a top-level comment of this discussion' }],
        },
      };
    }
    const comment: Comment = {
      id: `DC_kwDO${this.next++}`,
      body: String(variables.body),
      createdAt: new Date().toISOString(),
      author: this.login,
      ...(replyTo ? { replyTo } : {}),
    };
    d.comments.push(comment);
    return { body: { data: { addDiscussionComment: { comment: this.commentJson(comment, d) } } } };
  }
}
