import * as z from 'zod';
import type { WorldState } from './github-world';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from './simulated-http';
import { diffAnswer, wantsDiff } from './github-answers-prs';

/**
 * The pull-request and issue side of the sandbox's code host, with state: the changes each
 * commit made (so that a pull request has a diff and files), reviews and their inline
 * comments and replies, merges, and labels added and removed. It answers in the published
 * examples' shapes through the world (github-world.ts), which hands it what it reads.
 */

type Json = Record<string, unknown>;
type Repo = WorldState['repos'][number];
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
const lines = (b64: string | null) => (b64 === null ? [] : Buffer.from(b64, 'base64').toString('utf8').split('\n'));

/** One file's change as a unified diff hunk: the changed middle with up to 3 lines of context around it. */
export function unifiedHunk(before: string[], after: string[]): { hunk: string; additions: number; deletions: number } {
  // A trailing newline leaves an empty last element: not a line of its own.
  const a = before.at(-1) === '' ? before.slice(0, -1) : before;
  const b = after.at(-1) === '' ? after.slice(0, -1) : after;
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const lead = Math.min(3, p);
  const tail = Math.min(3, s);
  const removed = a.slice(p, a.length - s);
  const added = b.slice(p, b.length - s);
  const oldCount = lead + removed.length + tail;
  const newCount = lead + added.length + tail;
  const start = (count: number) => (count === 0 ? p - lead : p - lead + 1);
  const body = [
    ...a.slice(p - lead, p).map((l) => ` ${l}`),
    ...removed.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    ...a.slice(a.length - s, a.length - s + tail).map((l) => ` ${l}`),
  ];
  const hunk = `@@ -${start(oldCount)},${oldCount} +${start(newCount)},${newCount} @@\n${body.join('\n')}`;
  return { hunk, additions: added.length, deletions: removed.length };
}

/** The commits reachable from `sha` by their parents. */
function reachable(repo: Repo, sha: string | undefined): Set<string> {
  const seen = new Set<string>();
  const stack = sha ? [sha] : [];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(repo.commits.find((c) => c.sha === next)?.parents ?? []));
  }
  return seen;
}

/**
 * Wraps the world's answers (`own`) with this part's: the operations it adds, and the
 * world's file writes, pull request reads and issue lists, which it extends.
 */
export function withPullRequests(own: Record<string, OperationResponder>, w: PullRequestWorld): Record<string, OperationResponder> {
  const body = (r: MatchedRequest) => (r.json ?? {}) as Json;
  const st = () => w.state();
  const inRepo =
    (then: (repo: Repo, r: MatchedRequest) => SimulatedResponse | Promise<SimulatedResponse>): OperationResponder =>
    (r) => {
      const repo = w.find(r.params.owner ?? '', r.params.repo ?? '');
      return repo ? then(repo, r) : notFound;
    };
  const pullOf = (repo: Repo, r: MatchedRequest) => repo.issues.find((i) => i.pull && String(i.number) === r.params.pull_number);
  const issueOf = (repo: Repo, r: MatchedRequest) => repo.issues.find((i) => String(i.number) === r.params.issue_number);
  const paged = <T>(items: T[], r: MatchedRequest): T[] => {
    const perPage = Math.min(100, Math.max(1, Number(r.query.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(r.query.get('page') ?? 1) || 1);
    return items.slice((page - 1) * perPage, page * perPage);
  };

  /** The files a pull request changes: those written by commits on its head that its base does not have. */
  const filesOf = (repo: Repo, pull: Issue) => {
    const inBase = reachable(repo, w.headOf(repo, pull.pull?.base ?? repo.default_branch));
    const own = reachable(repo, w.headOf(repo, pull.pull?.head ?? ''));
    const byPath = new Map<string, { before: string | null; after: string }>();
    const changes = st().changes.filter((c) => c.repo === fullName(repo) && own.has(c.commit) && !inBase.has(c.commit));
    for (const c of changes) {
      const seen = byPath.get(c.path);
      byPath.set(c.path, { before: seen ? seen.before : c.before, after: c.after });
    }
    // In git's order: by path.
    return [...byPath.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, c]) => ({ path, new: c.before === null, ...unifiedHunk(lines(c.before), lines(c.after)) }));
  };
  const mergeOf = (repo: Repo, pull: Issue) => st().merges.find((m) => m.repo === fullName(repo) && m.number === pull.number);

  const renderPull = (repo: Repo, pull: Issue): Json => {
    const files = filesOf(repo, pull);
    const merge = mergeOf(repo, pull);
    return {
      ...w.renderPull(repo, pull),
      changed_files: files.length,
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      merged: merge !== undefined,
      mergeable: merge ? null : pull.state === 'open',
      merged_at: merge?.at ?? null,
      merge_commit_sha: merge?.sha ?? null,
      merged_by: merge ? w.user(merge.by) : null,
    };
  };
  const diffOf = (repo: Repo, pull: Issue) =>
    filesOf(repo, pull)
      .map((f) =>
        [
          `diff --git a/${f.path} b/${f.path}`,
          ...(f.new ? ['new file mode 100644', '--- /dev/null'] : [`--- a/${f.path}`]),
          `+++ b/${f.path}`,
          f.hunk,
          '',
        ].join('\n'),
      )
      .join('');

  const renderReview = (repo: Repo, x: PullRequestState['reviews'][number]): Json => ({
    ...w.shape('pulls/create-review', fullName(repo)),
    id: x.id,
    node_id: `PRR_${x.id}`,
    user: w.user(x.user),
    body: x.body,
    state: x.state,
    html_url: `https://github.com/${fullName(repo)}/pull/${x.number}#pullrequestreview-${x.id}`,
    pull_request_url: `${String(w.shape('repos/get', fullName(repo)).url)}/pulls/${x.number}`,
    commit_id: x.commit_id,
    submitted_at: x.submitted_at,
    author_association: x.user === repo.owner ? 'OWNER' : 'NONE',
  });
  const renderReviewComment = (repo: Repo, c: PullRequestState['reviewComments'][number]): Json => {
    const { in_reply_to_id: _i, ...shape } = w.shape('pulls/create-reply-for-review-comment', fullName(repo));
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
      user: w.user(c.user),
      commit_id: c.commit_id,
      original_commit_id: c.commit_id,
      html_url: `https://github.com/${fullName(repo)}/pull/${c.number}#discussion_r${c.id}`,
      author_association: c.user === repo.owner ? 'OWNER' : 'NONE',
      created_at: c.created_at,
      updated_at: c.created_at,
      ...(c.in_reply_to_id === undefined ? {} : { in_reply_to_id: c.in_reply_to_id }),
    };
  };
  const renderLabels = (repo: Repo, issue: Issue) => {
    const example = w.shape('issues/add-labels', fullName(repo));
    return (w.renderIssue(repo, issue).labels as Json[]).map((l) => ({
      ...example,
      ...l,
      node_id: `LA_${String(l.id)}`,
      url: `${String(w.shape('repos/get', fullName(repo)).url)}/labels/${encodeURIComponent(String(l.name))}`,
      description: null,
    }));
  };
  const byState = <T extends { state: string }>(items: T[], r: MatchedRequest) => {
    const state = r.query.get('state') ?? 'open';
    return state === 'all' ? items : items.filter((i) => i.state === state);
  };

  const changed =
    (then: OperationResponder): OperationResponder =>
    async (r) => {
      const answer = await then(r);
      w.refresh();
      return answer;
    };
  const writes = [
    'pulls/create-review',
    'pulls/create-reply-for-review-comment',
    'pulls/update-branch',
    'pulls/merge',
    'issues/add-labels',
    'issues/remove-label',
  ];
  const answers: Record<string, OperationResponder> = {
    ...own,
    'repos/create-or-update-file-contents': async (r) => {
      const repo = w.find(r.params.owner ?? '', r.params.repo ?? '');
      const path = r.params.path ?? '';
      const before = repo?.files[path]?.content ?? null;
      const answer = await (own['repos/create-or-update-file-contents'] as OperationResponder)(r);
      const commit = ((answer.body as Json | undefined)?.commit as Json | undefined)?.sha;
      if (repo && (answer.status === 200 || answer.status === 201) && typeof commit === 'string')
        st().changes.push({ repo: fullName(repo), commit, path, before, after: String(body(r).content ?? '') });
      return answer;
    },
    'pulls/get': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull) return notFound;
      return wantsDiff(r) ? diffAnswer(diffOf(repo, pull)) : { body: renderPull(repo, pull) };
    }),
    'pulls/list': inRepo((repo, r) => {
      const head = r.query.get('head')?.replace(/^[^:]+:/, '');
      const base = r.query.get('base');
      const pulls = byState(
        repo.issues.filter((i) => i.pull && (!head || i.pull.head === head) && (!base || i.pull.base === base)),
        r,
      ).sort((a, b) => b.number - a.number);
      return { body: paged(pulls, r).map((p) => renderPull(repo, p)) };
    }),
    'pulls/list-files': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull) return notFound;
      const example = w.shape('pulls/list-files', fullName(repo));
      const head = w.headOf(repo, pull.pull?.head ?? '') ?? '';
      const files = filesOf(repo, pull).map((f) => ({
        ...example,
        sha: repo.files[f.path]?.sha ?? null,
        filename: f.path,
        status: f.new ? 'added' : 'modified',
        additions: f.additions,
        deletions: f.deletions,
        changes: f.additions + f.deletions,
        blob_url: `https://github.com/${fullName(repo)}/blob/${head}/${f.path}`,
        raw_url: `https://github.com/${fullName(repo)}/raw/${head}/${f.path}`,
        contents_url: `${String(w.shape('repos/get', fullName(repo)).url)}/contents/${f.path}?ref=${head}`,
        patch: f.hunk,
      }));
      return { body: paged(files, r) };
    }),
    'checks/list-for-ref': inRepo((repo, r) => {
      const ref = r.params.ref ?? '';
      const sha = w.headOf(repo, ref) ?? ref;
      const { check_runs: runs = [] } = w.shape('checks/list-for-ref', fullName(repo)) as { check_runs?: Json[] };
      const example = runs[0] ?? {};
      const name = r.query.get('check_name');
      // The sandbox's workflow runs report as the check runs of their commit.
      const found = repo.runs
        .filter((x) => x.head_sha === sha && (!name || x.name === name))
        .map((x) => ({
          ...example,
          id: x.id,
          node_id: `CR_${String(x.id)}`,
          head_sha: sha,
          name: x.name,
          status: x.status,
          conclusion: x.conclusion,
          html_url: `https://github.com/${fullName(repo)}/actions/runs/${String(x.id)}`,
          details_url: `https://github.com/${fullName(repo)}/actions/runs/${String(x.id)}`,
          started_at: x.created_at,
          completed_at: x.status === 'completed' ? x.updated_at : null,
          output: { title: String(x.name), summary: `${String(x.name)}: ${String(x.conclusion ?? x.status)}`, text: null },
          pull_requests: [],
        }));
      return { body: { total_count: found.length, check_runs: paged(found, r) } };
    }),
    'repos/get-combined-status-for-ref': inRepo((repo, r) => {
      const ref = r.params.ref ?? '';
      const sha = w.headOf(repo, ref) ?? ref;
      // Nothing in the sandbox posts commit statuses; the code host calls none "pending".
      return {
        body: { ...w.shape('repos/get-combined-status-for-ref', fullName(repo)), state: 'pending', statuses: [], sha, total_count: 0 },
      };
    }),
    'pulls/create-review': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull) return notFound;
      const input = body(r);
      const event = String(input.event ?? '');
      if (pull.state !== 'open') return unprocessable('Can not review a closed pull request');
      // As the code host: an author cannot approve or request changes on their own pull request.
      if (pull.user === w.login && event === 'APPROVE') return unprocessable('Can not approve your own pull request');
      if (pull.user === w.login && event === 'REQUEST_CHANGES') return unprocessable('Can not request changes on your own pull request');
      const files = new Set(filesOf(repo, pull).map((f) => f.path));
      const comments = Array.isArray(input.comments) ? (input.comments as Json[]) : [];
      const outside = comments.find((c) => !files.has(String(c.path)));
      if (outside) return unprocessable(`Path could not be resolved: ${String(outside.path)}`);
      const at = w.now();
      const commit = typeof input.commit_id === 'string' ? input.commit_id : (w.headOf(repo, pull.pull?.head ?? '') ?? '');
      const states: Record<string, string> = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' };
      const x = {
        id: w.nextId(),
        repo: fullName(repo),
        number: pull.number,
        user: w.login,
        state: states[event] ?? 'PENDING',
        body: typeof input.body === 'string' ? input.body : '',
        commit_id: commit,
        submitted_at: at,
      };
      st().reviews.push(x);
      for (const c of comments) {
        const line = typeof c.line === 'number' ? c.line : typeof c.position === 'number' ? c.position : null;
        const side = typeof c.side === 'string' ? c.side : 'RIGHT';
        st().reviewComments.push({
          ...x,
          id: w.nextId(),
          review_id: x.id,
          path: String(c.path),
          line,
          side,
          body: String(c.body),
          created_at: at,
        });
      }
      return { body: renderReview(repo, x) };
    }),
    'pulls/list-reviews': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull) return notFound;
      return {
        body: paged(
          st().reviews.filter((x) => x.repo === fullName(repo) && x.number === pull.number),
          r,
        ).map((x) => renderReview(repo, x)),
      };
    }),
    'pulls/list-review-comments': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull) return notFound;
      const found = st().reviewComments.filter((c) => c.repo === fullName(repo) && c.number === pull.number);
      return { body: paged(found, r).map((c) => renderReviewComment(repo, c)) };
    }),
    'pulls/create-reply-for-review-comment': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      const to = st().reviewComments.find(
        (c) => c.repo === fullName(repo) && c.number === pull?.number && String(c.id) === r.params.comment_id,
      );
      if (!pull || !to) return notFound;
      const reply = {
        ...to,
        id: w.nextId(),
        body: String(body(r).body ?? ''),
        user: w.login,
        in_reply_to_id: to.in_reply_to_id ?? to.id,
        created_at: w.now(),
      };
      st().reviewComments.push(reply);
      return { status: 201, body: renderReviewComment(repo, reply) };
    }),
    'pulls/update-branch': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull?.pull) return notFound;
      const head = w.headOf(repo, pull.pull.head);
      const base = w.headOf(repo, pull.pull.base);
      const expected = body(r).expected_head_sha;
      if (typeof expected === 'string' && expected !== head) return unprocessable('expected head sha didn’t match current head ref.');
      if (!base || !head || reachable(repo, head).has(base)) return unprocessable('There are no new commits on the base branch.');
      const merge = w.commitTo(repo, pull.pull.head, `Merge branch '${pull.pull.base}' into ${pull.pull.head}`);
      repo.commits.find((c) => c.sha === merge)?.parents.push(base);
      return {
        status: 202,
        body: { message: 'Updating pull request branch.', url: `https://github.com/${fullName(repo)}/pull/${pull.number}` },
      };
    }),
    'pulls/merge': inRepo((repo, r) => {
      const pull = pullOf(repo, r);
      if (!pull?.pull) return notFound;
      if (pull.state !== 'open' || mergeOf(repo, pull)) return { status: 405, body: { message: 'Pull Request is not mergeable' } };
      const input = body(r);
      const head = w.headOf(repo, pull.pull.head) ?? '';
      if (typeof input.sha === 'string' && input.sha !== head)
        return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } };
      const title =
        typeof input.commit_title === 'string'
          ? input.commit_title
          : `Merge pull request #${pull.number} from ${repo.owner}/${pull.pull.head}`;
      const sha = w.commitTo(repo, pull.pull.base, title);
      repo.commits.find((c) => c.sha === sha)?.parents.push(head);
      const at = w.now();
      pull.state = 'closed';
      pull.closed_at = at;
      pull.updated_at = at;
      st().merges.push({ repo: fullName(repo), number: pull.number, sha, at, by: w.login });
      return { body: { sha, merged: true, message: 'Pull Request successfully merged' } };
    }),
    'issues/list-for-repo': inRepo((repo, r) => {
      const labels = (r.query.get('labels') ?? '').split(',').filter(Boolean);
      const creator = r.query.get('creator');
      const found = byState(repo.issues, r)
        .filter((i) => labels.every((l) => i.labels.includes(l)) && (!creator || i.user === creator))
        .sort((a, b) => b.number - a.number);
      return { body: paged(found, r).map((i) => w.renderIssue(repo, i)) };
    }),
    'issues/add-labels': inRepo((repo, r) => {
      const issue = issueOf(repo, r);
      if (!issue) return notFound;
      const wanted = (Array.isArray(body(r).labels) ? (body(r).labels as unknown[]) : []).map((l) =>
        String(typeof l === 'string' ? l : (l as Json)?.name),
      );
      for (const name of wanted) if (!issue.labels.includes(name)) issue.labels.push(name);
      issue.updated_at = w.now();
      return { body: renderLabels(repo, issue) };
    }),
    'issues/remove-label': inRepo((repo, r) => {
      const issue = issueOf(repo, r);
      if (!issue) return notFound;
      const name = r.params.name ?? '';
      if (!issue.labels.includes(name)) return { status: 404, body: { message: 'Label does not exist' } };
      issue.labels = issue.labels.filter((l) => l !== name);
      issue.updated_at = w.now();
      return { body: renderLabels(repo, issue) };
    }),
    'repos/get-collaborator-permission-level': inRepo((repo, r) => {
      const login = r.params.username ?? '';
      // The sandbox keeps no collaborators: the owner administers, others read a public repository.
      const permission = login.toLowerCase() === repo.owner.toLowerCase() ? 'admin' : repo.private ? 'none' : 'read';
      return {
        body: { ...w.shape('repos/get-collaborator-permission-level'), permission, role_name: permission, user: w.user(login) },
      };
    }),
  };
  for (const op of writes) answers[op] = changed(answers[op] as OperationResponder);
  return answers;
}
