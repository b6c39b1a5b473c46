import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import type { SimulatedGitHub } from './simulated-github';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from '../simulated-http';
import { filesAt, type WorldKit } from './github-world-git';
import { gistSchema, repoSchema } from './github-world-records';
import { repoWorldAnswers } from './github-world-repos';
import { pullRequestStateSchema, withPullRequests } from './github-world-prs';

type Json = Record<string, unknown>;

/**
 * One published example answer per operation (`github-openapi-answers.json`, extracted from
 * the code host's REST description by test/fixtures/extract-github-examples.ts): the world
 * answers in these shapes, with its own values put in.
 */
const published = z
  .object({ source: z.string(), answers: z.record(z.string(), z.object({ status: z.number(), example: z.unknown() })) })
  .parse(JSON.parse(readFileSync(fileURLToPath(new URL('./github-openapi-answers.json', import.meta.url)), 'utf8')));

/** The repositories the published examples are about; their names in the URLs are replaced by ours. */
const exampleRepositories = ['octocat/Hello-World', 'octo-org/octo-repo'];

const created = '2011-01-26T19:01:12Z';
const notFound: SimulatedResponse = {
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
};
const validation = (resource: string, field: string, message: string): SimulatedResponse => ({
  status: 422,
  body: { message: 'Validation Failed', errors: [{ resource, code: 'custom', field, message }] },
});

/** What the world holds, as its state file keeps it: our values only (the shapes come from the examples). */
export const worldStateSchema = z.object({
  nextId: z.number().int(),
  repos: z.array(repoSchema),
  gists: z.array(gistSchema),
  prs: pullRequestStateSchema.optional(),
});
export type WorldState = z.infer<typeof worldStateSchema>;
type Repo = z.infer<typeof repoSchema>;
type Issue = Repo['issues'][number];
type Gist = z.infer<typeof gistSchema>;

const gitSha = (text: string) => createHash('sha1').update(text).digest('hex');

const body = (r: MatchedRequest) => (r.json ?? {}) as Json;
/** A page of a list as the code host pages it (`per_page` 30 by default, at most 100; `page`). */
const paged = (items: Json[], r: MatchedRequest): Json[] => {
  const perPage = Math.min(100, Math.max(1, Number(r.query.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(r.query.get('page') ?? 1) || 1);
  return items.slice((page - 1) * perPage, page * perPage);
};
const issueOf = (repo: Repo, r: MatchedRequest) => repo.issues.find((i) => String(i.number) === r.params.issue_number);
const byState = (items: Issue[], r: MatchedRequest) => {
  const state = r.query.get('state') ?? 'open';
  return state === 'all' ? items : items.filter((i) => i.state === state);
};
const newest = (items: Issue[]) => [...items].sort((a, b) => b.number - a.number);

/**
 * The sandbox's simulated code host as one account's world: the demo user's repositories (and
 * those it creates in organizations), their issues and pull requests (one number sequence, as
 * the code host has), comments, commits, files, branches, workflow runs and releases, and
 * gists. Lists and single resources answer from the same records, so whatever a list shows can
 * be fetched and whatever a step creates is listed; ids and numbers advance; a repository the
 * world does not hold is 404. Answers take the published examples' shapes with the world's
 * values put in. The state is plain data (`snapshot`/`restore`), which the sandbox keeps in its
 * data directory across restarts.
 */
export class SimulatedGitHubWorld {
  private state: WorldState = { nextId: 5000, repos: [], gists: [] };

  constructor(
    private readonly github: SimulatedGitHub,
    private readonly login: string,
    private readonly userId: number,
  ) {
    this.refresh();
  }

  private get base(): string {
    return this.github.url;
  }

  snapshot(): WorldState {
    return this.state;
  }

  restore(state: WorldState): void {
    this.state = structuredClone(state);
    this.refresh();
  }

  /** Whether the world holds `owner/repo` (names compared without case, as the code host does). */
  hasRepository(owner: string, repo: string): boolean {
    return this.find(owner, repo) !== undefined;
  }

  /** The branches of `owner/repo` and their heads (`main` -> SHA): a write that moves one is a push. */
  branchHeads(owner: string, repo: string): Record<string, string> | undefined {
    const r = this.find(owner, repo);
    if (!r) return undefined;
    return Object.fromEntries(
      Object.entries(r.refs)
        .filter(([ref]) => ref.startsWith('heads/'))
        .map(([ref, sha]) => [ref.slice('heads/'.length), sha]),
    );
  }

  /** A commit of `owner/repo` as the world keeps it. */
  commit(owner: string, repo: string, sha: string): Repo['commits'][number] | undefined {
    return this.find(owner, repo)?.commits.find((c) => c.sha === sha);
  }

  /** A hook owner (`repos/o/r`, `orgs/x`) the code host would know. */
  hookOwnerExists(hookOwner: string): boolean {
    const [kind, a = '', b = ''] = hookOwner.split('/');
    if (kind === 'repos') return this.hasRepository(a, b);
    return this.state.repos.some((r) => r.ownerType === 'Organization' && r.owner.toLowerCase() === a.toLowerCase());
  }

  /** A workflow run as stored, changed in place by the operations on runs (github-world-loop.ts); adding one puts it first. */
  workflowRun(owner: string, repo: string, id: number, add?: Json): Json | undefined {
    const r = this.find(owner, repo);
    if (add && r) r.runs.unshift(add);
    return r?.runs.find((x) => Number(x.id) === id);
  }

  private find(owner: string, repo: string): Repo | undefined {
    const name = `${owner}/${repo}`.toLowerCase();
    return this.state.repos.find((r) => `${r.owner}/${r.name}`.toLowerCase() === name);
  }

  private nextId(): number {
    return this.state.nextId++;
  }

  /**
   * The simulated host's own list routes (`GET /user/repos`, `/orgs/{org}/repos`, `/gists`)
   * page and tag what is set here: set again after every change.
   */
  private refresh(): void {
    const mine = this.state.repos.map((r) => this.renderRepo(r));
    this.github.repos.clear();
    this.github.repos.set(this.login, mine);
    for (const r of this.state.repos)
      if (r.ownerType === 'Organization') {
        const list = this.github.repos.get(r.owner) ?? [];
        list.push(this.renderRepo(r));
        this.github.repos.set(r.owner, list);
      }
    this.github.gists.set(
      this.login,
      this.state.gists.map((g) => this.renderGist(g)),
    );
  }

  /** The published example of an operation (the first item of a list), its URLs moved to this host and repository. */
  private shape(op: string, fullName?: string): Json {
    const answer = published.answers[op];
    const one = Array.isArray(answer?.example) ? answer.example[0] : answer?.example;
    if (!one || typeof one !== 'object') throw new Error(`no published example of ${op}`);
    let text = JSON.stringify(one).replaceAll('https://api.github.com', this.base);
    if (fullName)
      for (const name of exampleRepositories)
        text = text
          .replaceAll(`${name}/`, `${fullName}/`)
          .replaceAll(`${name}"`, `${fullName}"`)
          .replaceAll(`${name}.git`, `${fullName}.git`);
    return JSON.parse(text) as Json;
  }

  private user(login = this.login, type: 'User' | 'Organization' = 'User'): Json {
    const example = (this.shape('issues/create').user ?? {}) as Json;
    const moved = JSON.parse(JSON.stringify(example).replaceAll('octocat', login)) as Json;
    const id = login === this.login ? this.userId : Number.parseInt(gitSha(login).slice(0, 7), 16);
    return { ...moved, login, id, node_id: Buffer.from(`04:User${id}`).toString('base64'), type, site_admin: false };
  }

  private renderRepo(r: Repo): Json {
    const fullName = `${r.owner}/${r.name}`;
    const {
      template_repository: _t,
      parent: _p,
      source: _s,
      organization: _o,
      license: _l,
      mirror_url: _m,
      temp_clone_token: _c,
      ...shape
    } = this.shape('repos/get', fullName);
    const open = r.issues.filter((i) => i.state === 'open').length;
    return {
      ...shape,
      id: r.id,
      node_id: `R_kgDO${r.id}`,
      name: r.name,
      full_name: fullName,
      owner: this.user(r.owner, r.ownerType),
      private: r.private,
      visibility: r.private ? 'private' : 'public',
      description: r.description,
      homepage: null,
      default_branch: r.default_branch,
      forks_count: 0,
      forks: 0,
      stargazers_count: 0,
      watchers_count: 0,
      watchers: 0,
      subscribers_count: 1,
      network_count: 0,
      open_issues_count: open,
      open_issues: open,
      topics: [],
      license: null,
      permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
      created_at: r.created_at,
      updated_at: r.updated_at,
      pushed_at: r.pushed_at,
      ...(r.ownerType === 'Organization' ? { organization: this.user(r.owner, 'Organization') } : {}),
    };
  }

  private renderIssue(r: Repo, i: Issue): Json {
    const fullName = `${r.owner}/${r.name}`;
    const { pull_request: _pr, closed_by: _cb, milestone: _m, pinned_comment: _pc, ...shape } = this.shape('issues/create', fullName);
    const text = JSON.stringify(shape).replaceAll('/issues/1347', `/issues/${i.number}`);
    const assignees = i.assignees.map((login) => this.user(login));
    return {
      ...(JSON.parse(text) as Json),
      id: i.id,
      node_id: `I_kwDO${i.id}`,
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      state_reason: i.state === 'closed' ? 'completed' : null,
      user: this.user(i.user),
      labels: i.labels.map((name) => ({ id: Number.parseInt(gitSha(name).slice(0, 7), 16), name, color: 'ededed', default: false })),
      assignee: assignees[0] ?? null,
      assignees,
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: i.comments.length,
      author_association: i.user === r.owner ? 'OWNER' : 'NONE',
      created_at: i.created_at,
      updated_at: i.updated_at,
      closed_at: i.closed_at,
      ...(i.pull
        ? {
            pull_request: {
              url: `${this.base}/repos/${fullName}/pulls/${i.number}`,
              html_url: `https://github.com/${fullName}/pull/${i.number}`,
              diff_url: `https://github.com/${fullName}/pull/${i.number}.diff`,
              patch_url: `https://github.com/${fullName}/pull/${i.number}.patch`,
              merged_at: null,
            },
          }
        : {}),
    };
  }

  private renderPull(r: Repo, i: Issue): Json {
    const fullName = `${r.owner}/${r.name}`;
    const shape = JSON.parse(JSON.stringify(this.shape('pulls/create', fullName)).replaceAll('/1347', `/${i.number}`)) as Json;
    const head = this.headOf(r, i.pull?.head ?? r.default_branch);
    const side = (ref: string, sha: string) => ({
      ...((shape.head ?? {}) as Json),
      label: `${r.owner}:${ref}`,
      ref,
      sha,
      user: this.user(r.owner, r.ownerType),
      repo: this.renderRepo(r),
    });
    return {
      ...shape,
      id: i.id,
      node_id: `PR_kwDO${i.id}`,
      number: i.number,
      state: i.state,
      locked: false,
      active_lock_reason: null,
      title: i.title,
      body: i.body,
      user: this.user(i.user),
      labels: [],
      milestone: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: side(i.pull?.head ?? '', head ?? ''),
      base: side(i.pull?.base ?? r.default_branch, this.headOf(r, i.pull?.base ?? r.default_branch) ?? ''),
      draft: i.pull?.draft ?? false,
      merged: false,
      merged_at: null,
      merged_by: null,
      merge_commit_sha: null,
      closed_at: i.closed_at,
      comments: i.comments.length,
      review_comments: 0,
      commits: 1,
      additions: 0,
      deletions: 0,
      changed_files: 0,
      author_association: i.user === r.owner ? 'OWNER' : 'NONE',
      created_at: i.created_at,
      updated_at: i.updated_at,
    };
  }

  private renderComment(r: Repo, i: Issue, c: Issue['comments'][number]): Json {
    const fullName = `${r.owner}/${r.name}`;
    const shape = this.shape('issues/create-comment', fullName);
    return {
      ...shape,
      id: c.id,
      node_id: `IC_kwDO${c.id}`,
      url: `${this.base}/repos/${fullName}/issues/comments/${c.id}`,
      html_url: `https://github.com/${fullName}/issues/${i.number}#issuecomment-${c.id}`,
      issue_url: `${this.base}/repos/${fullName}/issues/${i.number}`,
      body: c.body,
      user: this.user(c.user),
      author_association: c.user === r.owner ? 'OWNER' : 'NONE',
      created_at: c.created_at,
      updated_at: c.created_at,
    };
  }

  private renderCommit(r: Repo, c: WorldState['repos'][number]['commits'][number]): Json {
    const fullName = `${r.owner}/${r.name}`;
    const shape = JSON.parse(
      JSON.stringify(this.shape('repos/list-commits', fullName)).replaceAll('6dcb09b5b57875f334f61aebed695e2e4193db5e', c.sha),
    ) as Json;
    const person = { name: 'The Octocat', email: `${this.login}@users.noreply.github.com`, date: c.date };
    return {
      ...shape,
      sha: c.sha,
      node_id: `C_${c.sha.slice(0, 12)}`,
      commit: { ...((shape.commit ?? {}) as Json), message: c.message, author: person, committer: person, comment_count: 0 },
      author: this.user(),
      committer: this.user(),
      parents: c.parents.map((sha) => ({
        sha,
        url: `${this.base}/repos/${fullName}/commits/${sha}`,
        html_url: `https://github.com/${fullName}/commit/${sha}`,
      })),
    };
  }

  private renderGist(g: Gist): Json {
    const shape = this.shape('gists/create');
    const text = JSON.stringify(shape).replaceAll('2decf6c462d9b4418f2', g.id).replaceAll('aa5a315d61ae9438b18d', g.id);
    return {
      ...(JSON.parse(text) as Json),
      id: g.id,
      node_id: `G_${g.id}`,
      url: `${this.base}/gists/${g.id}`,
      html_url: `https://gist.github.com/${g.id}`,
      git_pull_url: `https://gist.github.com/${g.id}.git`,
      git_push_url: `https://gist.github.com/${g.id}.git`,
      description: g.description,
      public: g.public,
      owner: this.user(),
      user: null,
      files: Object.fromEntries(
        Object.entries(g.files).map(([filename, content]) => [
          filename,
          {
            filename,
            type: 'text/plain',
            language: null,
            raw_url: `https://gist.githubusercontent.com/${this.login}/${g.id}/raw/${gitSha(content)}/${filename}`,
            size: Buffer.byteLength(content),
            truncated: false,
            content,
            encoding: 'utf-8',
          },
        ]),
      ),
      comments: 0,
      forks: [],
      history: [],
      truncated: false,
      created_at: g.created_at,
      updated_at: g.updated_at,
    };
  }

  private headOf(r: Repo, ref: string): string | undefined {
    const bare = ref.replace(/^refs\//, '').replace(/^heads\//, '');
    return r.refs[`heads/${bare}`] ?? r.refs[ref.replace(/^refs\//, '')];
  }

  private commitTo(r: Repo, branch: string, message: string, now: string): string {
    const parent = this.headOf(r, branch);
    const sha = gitSha(`${r.owner}/${r.name}\n${parent ?? ''}\n${message}\n${this.state.nextId++}`);
    r.commits.unshift({ sha, message, date: now, parents: parent ? [parent] : [] });
    r.refs[`heads/${branch}`] = sha;
    r.pushed_at = now;
    r.updated_at = now;
    return sha;
  }

  /** A repository of the account (or of an organization it creates in), with a first commit, issue, workflow run and release. */
  addRepository(
    name: string,
    options: { description?: string | null; private?: boolean; owner?: string; ownerType?: 'User' | 'Organization'; at?: string } = {},
  ): Repo {
    const at = options.at ?? created;
    const r: Repo = {
      id: this.nextId(),
      name,
      owner: options.owner ?? this.login,
      ownerType: options.ownerType ?? 'User',
      private: options.private ?? false,
      description: options.description ?? null,
      default_branch: 'main',
      created_at: at,
      updated_at: at,
      pushed_at: at,
      nextNumber: 1,
      issues: [],
      commits: [],
      files: {},
      refs: {},
      runs: [],
      releases: [],
    };
    const readme = Buffer.from(`# ${name}\n`).toString('base64');
    r.files['README.md'] = { content: readme, sha: gitSha(`blob ${readme}`) };
    const head = this.commitTo(r, 'main', 'Initial commit', at);
    this.addIssue(r, { title: 'Found a bug', body: "I'm having a problem with this." }, at);
    const runId = this.nextId();
    r.runs.push({
      id: runId,
      name: 'CI',
      head_branch: 'main',
      head_sha: head,
      path: '.github/workflows/ci.yml',
      run_number: 1,
      event: 'push',
      status: 'completed',
      conclusion: 'success',
      workflow_id: 161335,
      created_at: at,
      updated_at: at,
    });
    r.releases.push({ id: this.nextId(), tag_name: 'v1.0.0', name: 'v1.0.0', target_commitish: 'main', created_at: at, published_at: at });
    this.state.repos.unshift(r);
    this.refresh();
    return r;
  }

  addGist(description: string | null, files: Record<string, string>, options: { public?: boolean; at?: string } = {}): Gist {
    const at = options.at ?? created;
    const g: Gist = {
      id: gitSha(`gist ${this.nextId()}`).slice(0, 20),
      description,
      public: options.public ?? true,
      files,
      created_at: at,
      updated_at: at,
    };
    this.state.gists.unshift(g);
    this.refresh();
    return g;
  }

  private addIssue(r: Repo, input: Json, at: string, pull?: Issue['pull']): Issue {
    const issue: Issue = {
      id: this.nextId(),
      number: r.nextNumber++,
      title: String(input.title ?? ''),
      body: typeof input.body === 'string' ? input.body : null,
      state: 'open',
      labels: (Array.isArray(input.labels) ? input.labels : []).map((l) => String(typeof l === 'string' ? l : (l as Json)?.name)),
      assignees: (Array.isArray(input.assignees) ? input.assignees : []).map(String),
      user: this.login,
      comments: [],
      created_at: at,
      updated_at: at,
      closed_at: null,
      ...(pull ? { pull } : {}),
    };
    r.issues.push(issue);
    return issue;
  }

  /** Answers of the operations whose resources this world holds (by operationId); the rest answer as before. */
  answers(now: () => string = () => new Date().toISOString()): Record<string, OperationResponder> {
    return withPullRequests(this.ownAnswers(now), {
      login: this.login,
      state: () => (this.state.prs ??= { changes: [], reviews: [], reviewComments: [], merges: [] }),
      find: (owner, repo) => this.find(owner, repo),
      renderPull: (repo, pull) => this.renderPull(repo, pull),
      renderIssue: (repo, issue) => this.renderIssue(repo, issue),
      user: (login) => this.user(login),
      shape: (op, fullName) => this.shape(op, fullName),
      headOf: (repo, ref) => this.headOf(repo, ref),
      commitTo: (repo, branch, message) => this.commitTo(repo, branch, message, now()),
      nextId: () => this.nextId(),
      now,
      refresh: () => this.refresh(),
    });
  }

  private ownAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      ...this.repoAnswers(now),
      ...this.writeAnswers(now),
      ...this.issueAnswers(now),
      ...this.pullAnswers(now),
      ...this.actionsAnswers(now),
      ...this.gistAnswers(now),
      // Branches, tags, releases, comparisons, the Git database, deletions, forks and search (github-world-repos.ts).
      ...Object.fromEntries(Object.entries(repoWorldAnswers(this.kit(), now)).map(([op, answer]) => [op, this.changed(answer)])),
    };
  }

  /** Answers for a repository of the world; 404 for one it does not hold. */
  private inRepo(then: (repo: Repo, r: MatchedRequest) => SimulatedResponse): OperationResponder {
    return (r) => {
      const repo = this.find(r.params.owner ?? '', r.params.repo ?? '');
      return repo ? then(repo, r) : notFound;
    };
  }

  /** A write: the host's own lists are set again after it. */
  private changed(then: OperationResponder): OperationResponder {
    return async (r) => {
      const answer = await then(r);
      this.refresh();
      return answer;
    };
  }

  private runs(repo: Repo, r: MatchedRequest, only?: (run: Json) => boolean): SimulatedResponse {
    const list = repo.runs.filter((x) => !only || only(x)).map((x) => this.renderRun(repo, x));
    return { body: { total_count: list.length, workflow_runs: paged(list, r) } };
  }

  private createRepo(r: MatchedRequest, now: () => string, owner: string, ownerType: 'User' | 'Organization'): SimulatedResponse {
    const name = String(body(r).name ?? '');
    if (this.find(owner, name)) return validation('Repository', 'name', 'name already exists on this account');
    const description = typeof body(r).description === 'string' ? (body(r).description as string) : null;
    const repo = this.addRepository(name, { description, private: body(r).private === true, owner, ownerType, at: now() });
    return { status: 201, body: this.renderRepo(repo) };
  }

  /** Repositories, their commits and the contents of a file. */
  private repoAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      'repos/get': this.inRepo((repo) => ({ body: this.renderRepo(repo) })),
      'repos/create-for-authenticated-user': this.changed((r) => this.createRepo(r, now, this.login, 'User')),
      'repos/create-in-org': this.changed((r) => this.createRepo(r, now, r.params.org ?? '', 'Organization')),
      'repos/list-commits': this.inRepo((repo, r) => {
        const sha = r.query.get('sha');
        const start = sha ? (this.headOf(repo, sha) ?? sha) : undefined;
        const from = start ? repo.commits.findIndex((c) => c.sha.startsWith(start)) : 0;
        if (from < 0) return notFound;
        return {
          body: paged(
            repo.commits.slice(from).map((c) => this.renderCommit(repo, c)),
            r,
          ),
        };
      }),
      'repos/get-commit': this.inRepo((repo, r) => {
        const ref = r.params.ref ?? '';
        const sha = this.headOf(repo, ref) ?? (ref === 'HEAD' ? this.headOf(repo, repo.default_branch) : ref);
        const hit = repo.commits.find((c) => sha !== undefined && sha.length >= 4 && c.sha.startsWith(sha));
        return hit
          ? { body: { ...this.renderCommit(repo, hit), files: [], stats: { total: 0, additions: 0, deletions: 0 } } }
          : validation('Commit', 'sha', `No commit found for SHA: ${ref}`);
      }),
      'repos/get-content': this.inRepo((repo, r) => {
        const path = r.params.path ?? '';
        const file = filesAt(this.kit(), repo, r.query.get('ref'))[path];
        if (!file) return notFound;
        const fullName = `${repo.owner}/${repo.name}`;
        const name = path.split('/').pop() ?? path;
        return {
          body: {
            ...this.shape('repos/get-content', fullName),
            type: 'file',
            encoding: 'base64',
            size: Buffer.from(file.content, 'base64').length,
            name,
            path,
            content: file.content,
            sha: file.sha,
            url: `${this.base}/repos/${fullName}/contents/${path}`,
            git_url: `${this.base}/repos/${fullName}/git/blobs/${file.sha}`,
            html_url: `https://github.com/${fullName}/blob/${repo.default_branch}/${path}`,
            download_url: `https://raw.githubusercontent.com/${fullName}/${repo.default_branch}/${path}`,
            _links: {
              self: `${this.base}/repos/${fullName}/contents/${path}`,
              git: `${this.base}/repos/${fullName}/git/blobs/${file.sha}`,
              html: `https://github.com/${fullName}/blob/${repo.default_branch}/${path}`,
            },
          },
        };
      }),
    };
  }

  /** Writing a file (a commit on its branch), refs and releases. */
  private writeAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      'repos/create-or-update-file-contents': this.changed(
        this.inRepo((repo, r) => {
          const path = r.params.path ?? '';
          const input = body(r);
          const existing = repo.files[path];
          // As the code host: updating a file needs the sha of the blob being replaced.
          if (existing && input.sha !== existing.sha)
            return { status: 409, body: { message: `${path} does not match ${String(input.sha ?? '')}` } };
          if (!existing && input.sha !== undefined) return { status: 404, body: { message: 'Not Found' } };
          const content = String(input.content ?? '');
          const sha = gitSha(`blob ${content}`);
          repo.files[path] = { content, sha };
          const branch = typeof input.branch === 'string' ? input.branch : repo.default_branch;
          const commit = this.commitTo(repo, branch, String(input.message ?? ''), now());
          const fullName = `${repo.owner}/${repo.name}`;
          const shape = this.shape('repos/create-or-update-file-contents', fullName);
          return {
            status: existing ? 200 : 201,
            body: {
              content: {
                ...((shape.content ?? {}) as Json),
                name: path.split('/').pop() ?? path,
                path,
                sha,
                size: Buffer.from(content, 'base64').length,
                url: `${this.base}/repos/${fullName}/contents/${path}`,
                html_url: `https://github.com/${fullName}/blob/${branch}/${path}`,
                git_url: `${this.base}/repos/${fullName}/git/blobs/${sha}`,
                download_url: `https://raw.githubusercontent.com/${fullName}/${branch}/${path}`,
                _links: {
                  self: `${this.base}/repos/${fullName}/contents/${path}`,
                  git: `${this.base}/repos/${fullName}/git/blobs/${sha}`,
                  html: `https://github.com/${fullName}/blob/${branch}/${path}`,
                },
              },
              commit: {
                ...((shape.commit ?? {}) as Json),
                sha: commit,
                node_id: `C_${commit.slice(0, 12)}`,
                url: `${this.base}/repos/${fullName}/git/commits/${commit}`,
                html_url: `https://github.com/${fullName}/commit/${commit}`,
                message: String(input.message ?? ''),
              },
            },
          };
        }),
      ),
      'git/get-ref': this.inRepo((repo, r) => {
        const ref = (r.params.ref ?? '').replace(/^refs\//, '');
        const sha = repo.refs[ref];
        return sha ? { body: this.renderRef(repo, ref, sha) } : notFound;
      }),
      'git/create-ref': this.changed(
        this.inRepo((repo, r) => {
          const ref = String(body(r).ref ?? '').replace(/^refs\//, '');
          const sha = String(body(r).sha ?? '');
          if (repo.refs[ref]) return validation('Reference', 'ref', 'Reference already exists');
          if (!repo.commits.some((c) => c.sha === sha)) return validation('Reference', 'sha', 'Object does not exist');
          repo.refs[ref] = sha;
          return { status: 201, body: this.renderRef(repo, ref, sha) };
        }),
      ),
      'repos/list-releases': this.inRepo((repo, r) => ({
        body: paged(
          repo.releases.map((x) => this.renderRelease(repo, x)),
          r,
        ),
      })),
    };
  }

  /** Issues and their comments. */
  private issueAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      'issues/list-for-repo': this.inRepo((repo, r) => ({
        body: paged(
          newest(byState(repo.issues, r)).map((i) => this.renderIssue(repo, i)),
          r,
        ),
      })),
      'issues/create': this.changed(
        this.inRepo((repo, r) => ({ status: 201, body: this.renderIssue(repo, this.addIssue(repo, body(r), now())) })),
      ),
      'issues/get': this.inRepo((repo, r) => {
        const issue = issueOf(repo, r);
        return issue ? { body: this.renderIssue(repo, issue) } : notFound;
      }),
      'issues/update': this.changed(
        this.inRepo((repo, r) => {
          const issue = issueOf(repo, r);
          if (!issue) return notFound;
          const { title, body: text, state, labels, assignees } = body(r);
          if (typeof title === 'string') issue.title = title;
          if (text !== undefined) issue.body = typeof text === 'string' ? text : null;
          if (state === 'open' || state === 'closed') {
            issue.closed_at = state === 'closed' ? (issue.closed_at ?? now()) : null;
            issue.state = state;
          }
          if (Array.isArray(labels)) issue.labels = labels.map((l) => String(typeof l === 'string' ? l : (l as Json)?.name));
          if (Array.isArray(assignees)) issue.assignees = assignees.map(String);
          issue.updated_at = now();
          return { body: this.renderIssue(repo, issue) };
        }),
      ),
      'issues/create-comment': this.changed(
        this.inRepo((repo, r) => {
          const issue = issueOf(repo, r);
          if (!issue) return notFound;
          const comment = { id: this.nextId(), body: String(body(r).body ?? ''), user: this.login, created_at: now() };
          issue.comments.push(comment);
          issue.updated_at = comment.created_at;
          return { status: 201, body: this.renderComment(repo, issue, comment) };
        }),
      ),
      'issues/list-comments': this.inRepo((repo, r) => {
        const issue = issueOf(repo, r);
        return issue
          ? {
              body: paged(
                issue.comments.map((c) => this.renderComment(repo, issue, c)),
                r,
              ),
            }
          : notFound;
      }),
    };
  }

  /** Pull requests, and the search of issues and pull requests. */
  private pullAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      'pulls/create': this.changed(
        this.inRepo((repo, r) => {
          const input = body(r);
          const head = String(input.head ?? '').replace(/^[^:]+:/, '');
          const baseRef = String(input.base ?? '');
          if (!this.headOf(repo, baseRef)) return validation('PullRequest', 'base', `base ${baseRef} does not exist`);
          if (!this.headOf(repo, head)) return validation('PullRequest', 'head', `head ${head} does not exist`);
          if (repo.issues.some((i) => i.pull?.head === head && i.pull.base === baseRef && i.state === 'open'))
            return validation('PullRequest', 'head', `A pull request already exists for ${repo.owner}:${head}.`);
          const pull = this.addIssue(repo, input, now(), { head, base: baseRef, draft: input.draft === true });
          return { status: 201, body: this.renderPull(repo, pull) };
        }),
      ),
      'pulls/get': this.inRepo((repo, r) => {
        const pull = repo.issues.find((i) => i.pull && String(i.number) === r.params.pull_number);
        return pull ? { body: this.renderPull(repo, pull) } : notFound;
      }),
      'pulls/list': this.inRepo((repo, r) => ({
        body: paged(
          newest(
            byState(
              repo.issues.filter((i) => i.pull),
              r,
            ),
          ).map((i) => this.renderPull(repo, i)),
          r,
        ),
      })),
      'search/issues-and-pull-requests': (r) => {
        // The `repo:owner/name` qualifiers narrow it; the remaining words must be in the title or body.
        const q = r.query.get('q') ?? '';
        const repos = [...q.matchAll(/\brepo:(\S+)/g)].map((m) => (m[1] ?? '').toLowerCase());
        const words = q
          .replace(/\b\w+:\S+/g, '')
          .toLowerCase()
          .split(/\s+/)
          .filter(Boolean);
        const items = this.state.repos
          .filter((repo) => repos.length === 0 || repos.includes(`${repo.owner}/${repo.name}`.toLowerCase()))
          .flatMap((repo) => repo.issues.map((i) => ({ repo, i })))
          .filter(({ i }) => words.every((w) => `${i.title} ${i.body ?? ''}`.toLowerCase().includes(w)))
          .map(({ repo, i }) => ({ ...this.renderIssue(repo, i), score: 1 }));
        return { body: { total_count: items.length, incomplete_results: false, items: paged(items, r) } };
      },
    };
  }

  /** Workflow runs, and a dispatched one listed at once. */
  private actionsAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      'actions/list-workflow-runs-for-repo': this.inRepo((repo, r) => this.runs(repo, r)),
      'actions/list-workflow-runs': this.inRepo((repo, r) =>
        this.runs(repo, r, (x) => String(x.workflow_id) === r.params.workflow_id || String(x.path).endsWith(`/${r.params.workflow_id}`)),
      ),
      'actions/get-workflow-run': this.inRepo((repo, r) => {
        const run = repo.runs.find((x) => String(x.id) === r.params.run_id);
        return run ? { body: this.renderRun(repo, run) } : notFound;
      }),
      'actions/create-workflow-dispatch': this.changed(
        this.inRepo((repo, r) => {
          const workflow = r.params.workflow_id ?? '';
          const ref = String(body(r).ref ?? repo.default_branch);
          const sha = this.headOf(repo, ref);
          if (!sha) return validation('Workflow', 'ref', `No ref found for: ${ref}`);
          const at = now();
          const id = this.nextId();
          // The dispatched run is listed at once, finished: the sandbox runs no workflow.
          repo.runs.unshift({
            id,
            name: workflow.replace(/\.ya?ml$/, ''),
            head_branch: ref,
            head_sha: sha,
            path: `.github/workflows/${workflow}`,
            run_number: repo.runs.length + 1,
            event: 'workflow_dispatch',
            status: 'completed',
            conclusion: 'success',
            workflow_id: /^\d+$/.test(workflow) ? Number(workflow) : 161335,
            created_at: at,
            updated_at: at,
          });
          return { status: 204 };
        }),
      ),
    };
  }

  /** Gists, and the account. */
  private gistAnswers(now: () => string): Record<string, OperationResponder> {
    return {
      'gists/create': this.changed((r) => {
        const files = (body(r).files ?? {}) as Record<string, { content?: string }>;
        const contents = Object.fromEntries(Object.entries(files).map(([name, f]) => [name, String(f?.content ?? '')]));
        const description = typeof body(r).description === 'string' ? (body(r).description as string) : null;
        return { status: 201, body: this.renderGist(this.addGist(description, contents, { public: body(r).public === true, at: now() })) };
      }),
      'gists/get': (r) => {
        const gist = this.state.gists.find((g) => g.id === r.params.gist_id);
        return gist ? { body: this.renderGist(gist) } : notFound;
      },
      'gists/update': this.changed((r) => {
        const gist = this.state.gists.find((g) => g.id === r.params.gist_id);
        if (!gist) return notFound;
        const input = body(r);
        if (typeof input.description === 'string') gist.description = input.description;
        for (const [name, f] of Object.entries((input.files ?? {}) as Record<string, { content?: string } | null>)) {
          if (f === null) delete gist.files[name];
          else if (typeof f?.content === 'string') gist.files[name] = f.content;
        }
        gist.updated_at = now();
        return { body: this.renderGist(gist) };
      }),
      'gists/list': (r) => ({
        body: paged(
          this.state.gists.map((g) => this.renderGist(g)),
          r,
        ),
      }),
      'gists/list-for-user': (r) => ({
        body: paged(
          r.params.username?.toLowerCase() === this.login.toLowerCase() ? this.state.gists.map((g) => this.renderGist(g)) : [],
          r,
        ),
      }),
      'users/get-authenticated': () => ({ body: this.profile() }),
    };
  }

  /** What the answers kept in files of their own reach of this world. */
  private kit(): WorldKit<Repo> {
    return {
      login: this.login,
      base: () => this.base,
      repos: () => this.state.repos,
      find: (owner, repo) => this.find(owner, repo),
      shape: (op, fullName) => this.shape(op, fullName),
      renderRepo: (r) => this.renderRepo(r),
      renderCommit: (r, c) => this.renderCommit(r, c),
      renderRelease: (r, release) => this.renderRelease(r, release),
      headOf: (r, ref) => this.headOf(r, ref),
      nextId: () => this.nextId(),
      addRepository: (name, options) => this.addRepository(name, options),
    };
  }

  /** The account as `GET /user` answers it: the published shape with the world's counts. */
  profile(): Json {
    return {
      ...this.shape('users/get-authenticated'),
      ...this.user(),
      name: 'The Octocat',
      company: null,
      blog: '',
      location: null,
      email: null,
      bio: null,
      twitter_username: null,
      public_repos: this.state.repos.filter((x) => !x.private && x.owner === this.login).length,
      public_gists: this.state.gists.filter((g) => g.public).length,
      private_gists: this.state.gists.filter((g) => !g.public).length,
      total_private_repos: this.state.repos.filter((x) => x.private && x.owner === this.login).length,
      owned_private_repos: this.state.repos.filter((x) => x.private && x.owner === this.login).length,
      followers: 0,
      following: 0,
      created_at: created,
      updated_at: created,
    };
  }

  private renderRef(repo: Repo, ref: string, sha: string): Json {
    const fullName = `${repo.owner}/${repo.name}`;
    return {
      ref: `refs/${ref}`,
      node_id: Buffer.from(`03:Ref${repo.id}:refs/${ref}`).toString('base64'),
      url: `${this.base}/repos/${fullName}/git/refs/${ref}`,
      object: { type: 'commit', sha, url: `${this.base}/repos/${fullName}/git/commits/${sha}` },
    };
  }

  private renderRun(repo: Repo, run: Json): Json {
    const fullName = `${repo.owner}/${repo.name}`;
    const { head_commit: _h, repository: _r, head_repository: _hr, ...shape } = this.shape('actions/get-workflow-run', fullName);
    const id = Number(run.id);
    const text = JSON.stringify(shape).replaceAll('/30433642', `/${id}`);
    return {
      ...(JSON.parse(text) as Json),
      ...run,
      node_id: `WFR_${id}`,
      display_title: String(run.name),
      url: `${this.base}/repos/${fullName}/actions/runs/${id}`,
      html_url: `https://github.com/${fullName}/actions/runs/${id}`,
      pull_requests: [],
      actor: this.user(),
      triggering_actor: this.user(),
      run_attempt: Number(run.run_attempt ?? 1),
      referenced_workflows: [],
      run_started_at: run.created_at,
      previous_attempt_url: null,
      repository: { id: repo.id, name: repo.name, full_name: fullName, owner: this.user(repo.owner, repo.ownerType) },
      head_repository: { id: repo.id, name: repo.name, full_name: fullName, owner: this.user(repo.owner, repo.ownerType) },
    };
  }

  private renderRelease(repo: Repo, release: Json): Json {
    const fullName = `${repo.owner}/${repo.name}`;
    const shape = this.shape('repos/list-releases', fullName);
    const id = Number(release.id);
    const tag = String(release.tag_name);
    return {
      ...shape,
      ...release,
      node_id: `RE_${id}`,
      url: `${this.base}/repos/${fullName}/releases/${id}`,
      html_url: `https://github.com/${fullName}/releases/tag/${tag}`,
      assets_url: `${this.base}/repos/${fullName}/releases/${id}/assets`,
      upload_url: `https://uploads.github.com/repos/${fullName}/releases/${id}/assets{?name,label}`,
      tarball_url: `${this.base}/repos/${fullName}/tarball/${tag}`,
      zipball_url: `${this.base}/repos/${fullName}/zipball/${tag}`,
      body: null,
      draft: false,
      prerelease: false,
      immutable: false,
      author: this.user(),
      assets: [],
    };
  }
}
