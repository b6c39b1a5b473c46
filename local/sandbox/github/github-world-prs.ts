import * as z from 'zod';
import type { RepoRecord } from './github-world-records';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from '../simulated-http';
import { diffAnswer, wantsDiff } from './github-answers-prs';
import { type ChangedFile, gitDiff, lines, reachable, unifiedHunk } from './github-world-prs-diff';

/**
 * The pull-request and issue side of the sandbox's code host, with state: the changes each
 * commit made (so that a pull request has a diff and files), reviews and their inline
 * comments and replies, merges, and labels added and removed. It answers in the published
 * examples' shapes through the world (github-world.ts), which hands it what it reads.
 */

type Json = Record<string, unknown>;
type Repo = RepoRecord;
type Issue = Repo['issues'][number];

const review = z.object({
  id: z.number().int(),
  repo: z.string(),
  number: z.number().int(),
  user: z.string(),
  state: z.string(),
  body: z.string(),
  commit_id: z.string(),
  submitted_at: z.string(),
});
const reviewComment = z.object({
  id: z.number().int(),
  repo: z.string(),
  number: z.number().int(),
  review_id: z.number().int(),
  path: z.string(),
  line: z.number().int().nullable(),
  side: z.string(),
  body: z.string(),
  user: z.string(),
  commit_id: z.string(),
  in_reply_to_id: z.number().int().optional(),
  created_at: z.string(),
});

/** What this part keeps in the world's state (`prs`), beside the world's own records. */
export const pullRequestStateSchema = z.object({
  /** The file each commit wrote: base64 contents before (null: a new file) and after. */
  changes: z.array(z.object({ repo: z.string(), commit: z.string(), path: z.string(), before: z.string().nullable(), after: z.string() })),
  reviews: z.array(review),
  reviewComments: z.array(reviewComment),
  merges: z.array(z.object({ repo: z.string(), number: z.number().int(), sha: z.string(), at: z.string(), by: z.string() })),
});
export type PullRequestState = z.infer<typeof pullRequestStateSchema>;

/** What the world lends this part: its records, renderers and the few changes it makes. */
export interface PullRequestWorld {
  login: string;
  state(): PullRequestState;
  find(owner: string, repo: string): Repo | undefined;
  renderPull(repo: Repo, pull: Issue): Json;
  renderIssue(repo: Repo, issue: Issue): Json;
  user(login: string): Json;
  shape(op: string, fullName?: string): Json;
  headOf(repo: Repo, ref: string): string | undefined;
  commitTo(repo: Repo, branch: string, message: string): string;
  nextId(): number;
  now(): string;
  /** Sets the world's lists again after a change. */
  refresh(): void;
}

const notFound: SimulatedResponse = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
const unprocessable = (message: string): SimulatedResponse => ({
  status: 422,
  body: { message: 'Unprocessable Entity', errors: [message], documentation_url: 'https://docs.github.com/rest' },
});

const fullName = (r: Repo) => `${r.owner}/${r.name}`;
const body = (r: MatchedRequest) => (r.json ?? {}) as Json;
const paged = <T>(items: T[], r: MatchedRequest): T[] => {
  const perPage = Math.min(100, Math.max(1, Number(r.query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(r.query.get('page') ?? 1) || 1);
  return items.slice((page - 1) * perPage, page * perPage);
};
const byState = <T extends { state: string }>(items: T[], r: MatchedRequest) => {
  const state = r.query.get('state') ?? 'open';
  return state === 'all' ? items : items.filter((i) => i.state === state);
};

type Responders = Record<string, OperationResponder>;
type Review = PullRequestState['reviews'][number];
type ReviewComment = PullRequestState['reviewComments'][number];

/** The answers, grouped by what they touch; the renderers put this part's records in the published shapes. */
class PullRequestPart {
  constructor(private readonly w: PullRequestWorld) {}

  private get st(): PullRequestState {
    return this.w.state();
  }

  private inRepo(then: (repo: Repo, r: MatchedRequest) => SimulatedResponse | Promise<SimulatedResponse>): OperationResponder {
    return (r) => {
      const repo = this.w.find(r.params.owner ?? '', r.params.repo ?? '');
      return repo ? then(repo, r) : notFound;
    };
  }

  private pullOf(repo: Repo, r: MatchedRequest): Issue | undefined {
    return repo.issues.find((i) => i.pull && String(i.number) === r.params.pull_number);
  }

  private issueOf(repo: Repo, r: MatchedRequest): Issue | undefined {
    return repo.issues.find((i) => String(i.number) === r.params.issue_number);
  }

  /** The files a pull request changes: those written by commits on its head that its base does not reach. */
  filesOf(repo: Repo, pull: Issue): ChangedFile[] {
    // A merged pull request keeps its diff: against its base as it was before the merge commit.
    const merge = this.mergeOf(repo, pull);
    const base = merge
      ? repo.commits.find((c) => c.sha === merge.sha)?.parents[0]
      : this.w.headOf(repo, pull.pull?.base ?? repo.default_branch);
    const inBase = reachable(repo, base);
    const own = reachable(repo, this.w.headOf(repo, pull.pull?.head ?? ''));
    const byPath = new Map<string, { before: string | null; after: string }>();
    for (const c of this.st.changes) {
      if (c.repo !== fullName(repo) || !own.has(c.commit) || inBase.has(c.commit)) continue;
      const seen = byPath.get(c.path);
      byPath.set(c.path, { before: seen ? seen.before : c.before, after: c.after });
    }
    // In git's order: by path.
    return [...byPath.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, c]) => ({ path, new: c.before === null, ...unifiedHunk(lines(c.before), lines(c.after)) }));
  }

  private mergeOf(repo: Repo, pull: Issue) {
    return this.st.merges.find((m) => m.repo === fullName(repo) && m.number === pull.number);
  }

  private apiUrl(repo: Repo): string {
    return String(this.w.shape('repos/get', fullName(repo)).url);
  }

  renderPull(repo: Repo, pull: Issue): Json {
    const files = this.filesOf(repo, pull);
    const merge = this.mergeOf(repo, pull);
    return {
      ...this.w.renderPull(repo, pull),
      changed_files: files.length,
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      merged: merge !== undefined,
      mergeable: merge ? null : pull.state === 'open',
      merged_at: merge?.at ?? null,
      merge_commit_sha: merge?.sha ?? null,
      merged_by: merge ? this.w.user(merge.by) : null,
    };
  }

  private renderReview(repo: Repo, x: Review): Json {
    return {
      ...this.w.shape('pulls/create-review', fullName(repo)),
      id: x.id,
      node_id: `PRR_${x.id}`,
      user: this.w.user(x.user),
      body: x.body,
      state: x.state,
      html_url: `https://github.com/${fullName(repo)}/pull/${x.number}#pullrequestreview-${x.id}`,
      pull_request_url: `${this.apiUrl(repo)}/pulls/${x.number}`,
      commit_id: x.commit_id,
      submitted_at: x.submitted_at,
      author_association: x.user === repo.owner ? 'OWNER' : 'NONE',
    };
  }

  private renderReviewComment(repo: Repo, c: ReviewComment): Json {
    const { in_reply_to_id: _i, ...shape } = this.w.shape('pulls/create-reply-for-review-comment', fullName(repo));
    return {
      ...shape,
      id: c.id,
      node_id: `PRRC_${c.id}`,
      pull_request_review_id: c.review_id,
      path: c.path,
      line: c.line,
      original_line: c.line,
      side: c.side,
      body: c.body,
      user: this.w.user(c.user),
      commit_id: c.commit_id,
      original_commit_id: c.commit_id,
      html_url: `https://github.com/${fullName(repo)}/pull/${c.number}#discussion_r${c.id}`,
      author_association: c.user === repo.owner ? 'OWNER' : 'NONE',
      created_at: c.created_at,
      updated_at: c.created_at,
      ...(c.in_reply_to_id === undefined ? {} : { in_reply_to_id: c.in_reply_to_id }),
    };
  }

  private renderLabels(repo: Repo, issue: Issue): Json[] {
    const example = this.w.shape('issues/add-labels', fullName(repo));
    return (this.w.renderIssue(repo, issue).labels as Json[]).map((l) => ({
      ...example,
      ...l,
      node_id: `LA_${String(l.id)}`,
      url: `${this.apiUrl(repo)}/labels/${encodeURIComponent(String(l.name))}`,
      description: null,
    }));
  }

  private renderFile(repo: Repo, head: string, f: ChangedFile): Json {
    return {
      ...this.w.shape('pulls/list-files', fullName(repo)),
      sha: repo.files[f.path]?.sha ?? null,
      filename: f.path,
      status: f.new ? 'added' : 'modified',
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      blob_url: `https://github.com/${fullName(repo)}/blob/${head}/${f.path}`,
      raw_url: `https://github.com/${fullName(repo)}/raw/${head}/${f.path}`,
      contents_url: `${this.apiUrl(repo)}/contents/${f.path}?ref=${head}`,
      patch: f.hunk,
    };
  }

  /** A workflow run as the check run of its commit. */
  private renderCheckRun(repo: Repo, run: Json): Json {
    const { check_runs: runs = [] } = this.w.shape('checks/list-for-ref', fullName(repo)) as { check_runs?: Json[] };
    const at = `https://github.com/${fullName(repo)}/actions/runs/${String(run.id)}`;
    return {
      ...(runs[0] ?? {}),
      id: run.id,
      node_id: `CR_${String(run.id)}`,
      head_sha: run.head_sha,
      name: run.name,
      status: run.status,
      conclusion: run.conclusion,
      html_url: at,
      details_url: at,
      started_at: run.created_at,
      completed_at: run.status === 'completed' ? run.updated_at : null,
      output: { title: String(run.name), summary: `${String(run.name)}: ${String(run.conclusion ?? run.status)}`, text: null },
      pull_requests: [],
    };
  }

  /** The pull request, its diff and files; each file write is recorded as its commit's change. */
  pullAnswers(own: Responders): Responders {
    return {
      'repos/create-or-update-file-contents': async (r) => {
        const repo = this.w.find(r.params.owner ?? '', r.params.repo ?? '');
        const path = r.params.path ?? '';
        const before = repo?.files[path]?.content ?? null;
        const answer = await (own['repos/create-or-update-file-contents'] as OperationResponder)(r);
        const commit = ((answer.body as Json | undefined)?.commit as Json | undefined)?.sha;
        if (repo && (answer.status === 200 || answer.status === 201) && typeof commit === 'string')
          this.st.changes.push({ repo: fullName(repo), commit, path, before, after: String(body(r).content ?? '') });
        return answer;
      },
      'pulls/get': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        if (!pull) return notFound;
        return wantsDiff(r) ? diffAnswer(gitDiff(this.filesOf(repo, pull))) : { body: this.renderPull(repo, pull) };
      }),
      'pulls/list': this.inRepo((repo, r) => {
        const head = r.query.get('head')?.replace(/^[^:]+:/, '');
        const base = r.query.get('base');
        const pulls = byState(
          repo.issues.filter((i) => i.pull && (!head || i.pull.head === head) && (!base || i.pull.base === base)),
          r,
        ).sort((a, b) => b.number - a.number);
        return { body: paged(pulls, r).map((p) => this.renderPull(repo, p)) };
      }),
      'pulls/list-files': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        if (!pull) return notFound;
        const head = this.w.headOf(repo, pull.pull?.head ?? '') ?? '';
        return { body: paged(this.filesOf(repo, pull), r).map((f) => this.renderFile(repo, head, f)) };
      }),
    };
  }

  /** The checks of a commit. */
  checkAnswers(): Responders {
    return {
      'checks/list-for-ref': this.inRepo((repo, r) => {
        const ref = r.params.ref ?? '';
        const sha = this.w.headOf(repo, ref) ?? ref;
        const name = r.query.get('check_name');
        // The sandbox's workflow runs report as the check runs of their commit.
        const found = repo.runs.filter((x) => x.head_sha === sha && (!name || x.name === name)).map((x) => this.renderCheckRun(repo, x));
        return { body: { total_count: found.length, check_runs: paged(found, r) } };
      }),
      'repos/get-combined-status-for-ref': this.inRepo((repo, r) => {
        const ref = r.params.ref ?? '';
        const sha = this.w.headOf(repo, ref) ?? ref;
        // Nothing in the sandbox posts commit statuses; the code host calls none "pending".
        return {
          body: {
            ...this.w.shape('repos/get-combined-status-for-ref', fullName(repo)),
            state: 'pending',
            statuses: [],
            sha,
            total_count: 0,
          },
        };
      }),
    };
  }

  /** A review submitted at once, its inline comments kept as review comments. */
  private createReview(repo: Repo, r: MatchedRequest): SimulatedResponse {
    const pull = this.pullOf(repo, r);
    if (!pull) return notFound;
    const input = body(r);
    const event = String(input.event ?? '');
    if (pull.state !== 'open') return unprocessable('Can not review a closed pull request');
    // As the code host: an author cannot approve or request changes on their own pull request.
    if (pull.user === this.w.login && event === 'APPROVE') return unprocessable('Can not approve your own pull request');
    if (pull.user === this.w.login && event === 'REQUEST_CHANGES') return unprocessable('Can not request changes on your own pull request');
    const files = new Set(this.filesOf(repo, pull).map((f) => f.path));
    const comments = Array.isArray(input.comments) ? (input.comments as Json[]) : [];
    const outside = comments.find((c) => !files.has(String(c.path)));
    if (outside) return unprocessable(`Path could not be resolved: ${String(outside.path)}`);
    const at = this.w.now();
    const commit = typeof input.commit_id === 'string' ? input.commit_id : (this.w.headOf(repo, pull.pull?.head ?? '') ?? '');
    const states: Record<string, string> = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' };
    const x = {
      id: this.w.nextId(),
      repo: fullName(repo),
      number: pull.number,
      user: this.w.login,
      state: states[event] ?? 'PENDING',
      body: typeof input.body === 'string' ? input.body : '',
      commit_id: commit,
      submitted_at: at,
    };
    this.st.reviews.push(x);
    for (const c of comments) {
      const line = typeof c.line === 'number' ? c.line : typeof c.position === 'number' ? c.position : null;
      const side = typeof c.side === 'string' ? c.side : 'RIGHT';
      this.st.reviewComments.push({
        repo: x.repo,
        number: x.number,
        user: x.user,
        commit_id: x.commit_id,
        id: this.w.nextId(),
        review_id: x.id,
        path: String(c.path),
        line,
        side,
        body: String(c.body),
        created_at: at,
      });
    }
    return { body: this.renderReview(repo, x) };
  }

  /** Reviews, their inline comments and replies. */
  reviewAnswers(): Responders {
    return {
      'pulls/create-review': this.inRepo((repo, r) => this.createReview(repo, r)),
      'pulls/list-reviews': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        if (!pull) return notFound;
        return {
          body: paged(
            this.st.reviews.filter((x) => x.repo === fullName(repo) && x.number === pull.number),
            r,
          ).map((x) => this.renderReview(repo, x)),
        };
      }),
      'pulls/list-review-comments': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        if (!pull) return notFound;
        const found = this.st.reviewComments.filter((c) => c.repo === fullName(repo) && c.number === pull.number);
        return { body: paged(found, r).map((c) => this.renderReviewComment(repo, c)) };
      }),
      'pulls/create-reply-for-review-comment': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        const to = this.st.reviewComments.find(
          (c) => c.repo === fullName(repo) && c.number === pull?.number && String(c.id) === r.params.comment_id,
        );
        if (!pull || !to) return notFound;
        const reply = {
          ...to,
          id: this.w.nextId(),
          body: String(body(r).body ?? ''),
          user: this.w.login,
          in_reply_to_id: to.in_reply_to_id ?? to.id,
          created_at: this.w.now(),
        };
        this.st.reviewComments.push(reply);
        return { status: 201, body: this.renderReviewComment(repo, reply) };
      }),
    };
  }

  /** Branch updates and merges. */
  branchAnswers(): Responders {
    return {
      'pulls/update-branch': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        if (!pull?.pull) return notFound;
        const head = this.w.headOf(repo, pull.pull.head);
        const base = this.w.headOf(repo, pull.pull.base);
        const expected = body(r).expected_head_sha;
        if (typeof expected === 'string' && expected !== head) return unprocessable('expected head sha didn’t match current head ref.');
        if (!base || !head || reachable(repo, head).has(base)) return unprocessable('There are no new commits on the base branch.');
        const merge = this.w.commitTo(repo, pull.pull.head, `Merge branch '${pull.pull.base}' into ${pull.pull.head}`);
        repo.commits.find((c) => c.sha === merge)?.parents.push(base);
        return {
          status: 202,
          body: { message: 'Updating pull request branch.', url: `https://github.com/${fullName(repo)}/pull/${pull.number}` },
        };
      }),
      'pulls/merge': this.inRepo((repo, r) => {
        const pull = this.pullOf(repo, r);
        if (!pull?.pull) return notFound;
        if (pull.state !== 'open' || this.mergeOf(repo, pull)) return { status: 405, body: { message: 'Pull Request is not mergeable' } };
        const input = body(r);
        const head = this.w.headOf(repo, pull.pull.head) ?? '';
        if (typeof input.sha === 'string' && input.sha !== head)
          return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } };
        const title =
          typeof input.commit_title === 'string'
            ? input.commit_title
            : `Merge pull request #${pull.number} from ${repo.owner}/${pull.pull.head}`;
        const sha = this.w.commitTo(repo, pull.pull.base, title);
        repo.commits.find((c) => c.sha === sha)?.parents.push(head);
        const at = this.w.now();
        pull.state = 'closed';
        pull.closed_at = at;
        pull.updated_at = at;
        this.st.merges.push({ repo: fullName(repo), number: pull.number, sha, at, by: this.w.login });
        return { body: { sha, merged: true, message: 'Pull Request successfully merged' } };
      }),
    };
  }

  /** Issue lists, labels and permissions. */
  issueAnswers(): Responders {
    return {
      'issues/list-for-repo': this.inRepo((repo, r) => {
        const labels = (r.query.get('labels') ?? '').split(',').filter(Boolean);
        const creator = r.query.get('creator');
        const found = byState(repo.issues, r)
          .filter((i) => labels.every((l) => i.labels.includes(l)) && (!creator || i.user === creator))
          .sort((a, b) => b.number - a.number);
        return { body: paged(found, r).map((i) => this.w.renderIssue(repo, i)) };
      }),
      'issues/add-labels': this.inRepo((repo, r) => {
        const issue = this.issueOf(repo, r);
        if (!issue) return notFound;
        const wanted = (Array.isArray(body(r).labels) ? (body(r).labels as unknown[]) : []).map((l) =>
          String(typeof l === 'string' ? l : (l as Json)?.name),
        );
        for (const name of wanted) if (!issue.labels.includes(name)) issue.labels.push(name);
        issue.updated_at = this.w.now();
        return { body: this.renderLabels(repo, issue) };
      }),
      'issues/remove-label': this.inRepo((repo, r) => {
        const issue = this.issueOf(repo, r);
        if (!issue) return notFound;
        const name = r.params.name ?? '';
        if (!issue.labels.includes(name)) return { status: 404, body: { message: 'Label does not exist' } };
        issue.labels = issue.labels.filter((l) => l !== name);
        issue.updated_at = this.w.now();
        return { body: this.renderLabels(repo, issue) };
      }),
      'repos/get-collaborator-permission-level': this.inRepo((repo, r) => {
        const login = r.params.username ?? '';
        // The sandbox keeps no collaborators: the owner administers, others read a public repository.
        const permission = login.toLowerCase() === repo.owner.toLowerCase() ? 'admin' : repo.private ? 'none' : 'read';
        return {
          body: { ...this.w.shape('repos/get-collaborator-permission-level'), permission, role_name: permission, user: this.w.user(login) },
        };
      }),
    };
  }
}

/**
 * Wraps the world's answers (`own`) with this part's: the operations it adds, and the
 * world's file writes, pull request reads and issue lists, which it extends.
 */
export function withPullRequests(own: Responders, w: PullRequestWorld): Responders {
  const part = new PullRequestPart(w);
  const changed =
    (then: OperationResponder): OperationResponder =>
    async (r) => {
      const answer = await then(r);
      w.refresh();
      return answer;
    };
  const writes = { ...part.reviewAnswers(), ...part.branchAnswers(), ...part.issueAnswers() };
  for (const op of [
    'pulls/create-review',
    'pulls/create-reply-for-review-comment',
    'pulls/update-branch',
    'pulls/merge',
    'issues/add-labels',
    'issues/remove-label',
  ])
    writes[op] = changed(writes[op] as OperationResponder);
  return { ...own, ...part.pullAnswers(own), ...part.checkAnswers(), ...writes };
}
