import type { SimulatedGitHub } from './simulated-github';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from './simulated-http';
import { b64, sha } from './github-answers';

type Json = Record<string, unknown>;

const created = '2011-01-26T19:01:12Z';
const notFound: SimulatedResponse = {
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
};

/**
 * The sandbox's simulated code host as one account's world: the demo user's repositories,
 * gists, commits, issues, workflow runs and releases, held once and answered by both the
 * list operations and the single-resource ones, so that whatever a list shows can be
 * fetched, and whatever is created shows up in the lists (field names and shapes from the
 * REST description's schemas, `local/sandbox/github-openapi-ops.json`).
 */
export class SimulatedGitHubWorld {
  private readonly repos: Json[] = [];
  private readonly gists: Json[] = [];
  private readonly commits = new Map<string, Json[]>();
  private readonly issues = new Map<string, Json[]>();
  private readonly runs = new Map<string, Json[]>();
  private readonly releases = new Map<string, Json[]>();
  private nextId = 5000;

  constructor(
    private readonly github: SimulatedGitHub,
    private readonly login: string,
    private readonly userId: number,
  ) {
    // The simulated host's own list routes (`GET /user/repos`, `/orgs/{org}/repos`, `/gists`) read these.
    github.repos.set(login, this.repos);
    github.gists.set(login, this.gists);
  }

  private get base(): string {
    return this.github.url;
  }

  private owner(login = this.login): Json {
    return { login, id: login === this.login ? this.userId : 1, node_id: `MDQ6VXNlcj${login}`, type: 'User', site_admin: false };
  }

  private find(owner: string, repo: string): Json | undefined {
    const name = `${owner}/${repo}`.toLowerCase();
    return this.repos.find((r) => String(r.full_name).toLowerCase() === name);
  }

  /** A repository of the account, with a first commit, issue, workflow run and release. */
  addRepository(name: string, options: { description?: string; private?: boolean } = {}): Json {
    const fullName = `${this.login}/${name}`;
    const id = this.nextId++;
    const repo: Json = {
      id,
      node_id: `R_kgDO${id}`,
      name,
      full_name: fullName,
      private: options.private ?? false,
      visibility: options.private ? 'private' : 'public',
      owner: this.owner(),
      html_url: `https://github.com/${fullName}`,
      description: options.description ?? null,
      fork: false,
      url: `${this.base}/repos/${fullName}`,
      default_branch: 'main',
      archived: false,
      disabled: false,
      topics: [],
      created_at: created,
      updated_at: created,
      pushed_at: created,
    };
    this.repos.unshift(repo);
    const head = sha(String(id % 10));
    this.commits.set(fullName, [
      {
        sha: head,
        node_id: `C_${head.slice(0, 12)}`,
        url: `${this.base}/repos/${fullName}/commits/${head}`,
        html_url: `https://github.com/${fullName}/commit/${head}`,
        commit: {
          message: 'Initial commit',
          author: { name: 'The Octocat', email: 'octocat@github.com', date: created },
          committer: { name: 'The Octocat', email: 'octocat@github.com', date: created },
        },
        author: this.owner(),
        committer: this.owner(),
        parents: [],
      },
    ]);
    this.issues.set(fullName, []);
    this.addIssue(fullName, { title: 'Found a bug', body: "I'm having a problem with this." });
    const runId = this.nextId++;
    this.runs.set(fullName, [
      {
        id: runId,
        name: 'CI',
        head_branch: 'main',
        head_sha: head,
        run_number: 1,
        event: 'push',
        status: 'completed',
        conclusion: 'success',
        workflow_id: 161335,
        url: `${this.base}/repos/${fullName}/actions/runs/${runId}`,
        html_url: `https://github.com/${fullName}/actions/runs/${runId}`,
        created_at: created,
        updated_at: created,
      },
    ]);
    const releaseId = this.nextId++;
    this.releases.set(fullName, [
      {
        id: releaseId,
        tag_name: 'v1.0.0',
        name: 'v1.0.0',
        draft: false,
        prerelease: false,
        author: this.owner(),
        url: `${this.base}/repos/${fullName}/releases/${releaseId}`,
        html_url: `https://github.com/${fullName}/releases/v1.0.0`,
        created_at: created,
        published_at: created,
      },
    ]);
    return repo;
  }

  addGist(description: string, files: Record<string, string>): Json {
    const id = `${(this.nextId++).toString(16)}aa5a315d61ae9438b18d`;
    const gist: Json = {
      id,
      node_id: `G_${id}`,
      url: `${this.base}/gists/${id}`,
      html_url: `https://gist.github.com/${id}`,
      description,
      public: true,
      owner: this.owner(),
      files: Object.fromEntries(
        Object.entries(files).map(([filename, content]) => [
          filename,
          {
            filename,
            type: 'text/plain',
            raw_url: `https://gist.githubusercontent.com/raw/${id}/${filename}`,
            size: content.length,
            content,
          },
        ]),
      ),
      comments: 0,
      created_at: created,
      updated_at: created,
    };
    this.gists.unshift(gist);
    return gist;
  }

  private addIssue(fullName: string, input: Json): Json {
    const list = this.issues.get(fullName) ?? [];
    const number = list.length + 1;
    const issue: Json = {
      id: this.nextId++,
      node_id: `I_kwDO${number}`,
      number,
      title: input.title,
      body: input.body ?? null,
      state: 'open',
      user: this.owner(),
      labels: (Array.isArray(input.labels) ? input.labels : []).map((l) => ({ name: typeof l === 'string' ? l : (l as Json).name })),
      assignees: (Array.isArray(input.assignees) ? input.assignees : []).map((login) => this.owner(String(login))),
      comments: 0,
      url: `${this.base}/repos/${fullName}/issues/${number}`,
      html_url: `https://github.com/${fullName}/issues/${number}`,
      repository_url: `${this.base}/repos/${fullName}`,
      created_at: created,
      updated_at: created,
    };
    list.push(issue);
    this.issues.set(fullName, list);
    return issue;
  }

  /** Answers of the operations whose resources this world holds (by operationId); the rest answer as before. */
  answers(): Record<string, OperationResponder> {
    const inRepo =
      (then: (fullName: string, r: MatchedRequest) => SimulatedResponse): OperationResponder =>
      (r) => {
        const repo = this.find(r.params.owner ?? '', r.params.repo ?? '');
        return repo ? then(String(repo.full_name), r) : notFound;
      };
    const body = (r: MatchedRequest) => (r.json ?? {}) as Json;
    const paged = (items: Json[], r: MatchedRequest): SimulatedResponse => {
      const perPage = Math.min(100, Math.max(1, Number(r.query.get('per_page') ?? 30) || 30));
      const page = Math.max(1, Number(r.query.get('page') ?? 1) || 1);
      return { body: items.slice((page - 1) * perPage, page * perPage) };
    };
    const runsOf = (fullName: string) => this.runs.get(fullName) ?? [];
    return {
      'repos/get': (r) => {
        const repo = this.find(r.params.owner ?? '', r.params.repo ?? '');
        return repo ? { body: repo } : notFound;
      },
      'repos/create-for-authenticated-user': (r) => {
        const name = String(body(r).name);
        if (this.find(this.login, name))
          return {
            status: 422,
            body: {
              message: 'Repository creation failed.',
              errors: [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }],
            },
          };
        return {
          status: 201,
          body: this.addRepository(name, { description: body(r).description as string | undefined, private: body(r).private === true }),
        };
      },
      'repos/list-commits': inRepo((fullName, r) => paged(this.commits.get(fullName) ?? [], r)),
      'repos/get-commit': inRepo((fullName, r) => {
        const ref = r.params.ref ?? '';
        const list = this.commits.get(fullName) ?? [];
        const hit = ref === 'main' || ref === 'HEAD' ? list[0] : list.find((c) => String(c.sha).startsWith(ref));
        return hit ? { body: hit } : { status: 422, body: { message: `No commit found for SHA: ${ref}` } };
      }),
      'repos/get-content': inRepo((_fullName, r) => ({
        body: { type: 'file', name: r.params.path, path: r.params.path, sha: sha('b'), encoding: 'base64', content: b64('hello\n') },
      })),
      'repos/list-releases': inRepo((fullName, r) => paged(this.releases.get(fullName) ?? [], r)),
      'issues/create': inRepo((fullName, r) => ({ status: 201, body: this.addIssue(fullName, body(r)) })),
      'issues/get': inRepo((fullName, r) => {
        const issue = this.issues.get(fullName)?.find((i) => String(i.number) === r.params.issue_number);
        return issue ? { body: issue } : notFound;
      }),
      'issues/update': inRepo((fullName, r) => {
        const issue = this.issues.get(fullName)?.find((i) => String(i.number) === r.params.issue_number);
        if (!issue) return notFound;
        const { title, body: text, state, labels, assignees } = body(r);
        if (title !== undefined) issue.title = title;
        if (text !== undefined) issue.body = text;
        if (state !== undefined) issue.state = state;
        if (Array.isArray(labels)) issue.labels = labels.map((l) => ({ name: typeof l === 'string' ? l : (l as Json).name }));
        if (Array.isArray(assignees)) issue.assignees = assignees.map((login) => this.owner(String(login)));
        issue.updated_at = new Date().toISOString();
        return { body: issue };
      }),
      'search/issues-and-pull-requests': (r) => {
        // The `repo:owner/name` qualifiers narrow it; the remaining words must be in the title or body.
        const q = r.query.get('q') ?? '';
        const repos = [...q.matchAll(/\brepo:(\S+)/g)].map((m) => (m[1] ?? '').toLowerCase());
        const words = q
          .replace(/\b\w+:\S+/g, '')
          .toLowerCase()
          .split(/\s+/)
          .filter(Boolean);
        const items = [...this.issues.entries()]
          .filter(([name]) => repos.length === 0 || repos.includes(name.toLowerCase()))
          .flatMap(([, list]) => list)
          .filter((i) => words.every((w) => `${String(i.title)} ${String(i.body ?? '')}`.toLowerCase().includes(w)));
        return { body: { total_count: items.length, incomplete_results: false, items: paged(items, r).body } };
      },
      'actions/list-workflow-runs-for-repo': inRepo((fullName, r) => {
        const runs = runsOf(fullName);
        return { body: { total_count: runs.length, workflow_runs: paged(runs, r).body } };
      }),
      'actions/list-workflow-runs': inRepo((fullName, r) => {
        const runs = runsOf(fullName).filter((x) => String(x.workflow_id) === r.params.workflow_id || r.params.workflow_id === 'ci.yml');
        return { body: { total_count: runs.length, workflow_runs: paged(runs, r).body } };
      }),
      'actions/get-workflow-run': inRepo((fullName, r) => {
        const run = runsOf(fullName).find((x) => String(x.id) === r.params.run_id);
        return run ? { body: run } : notFound;
      }),
      'gists/create': (r) => {
        const files = (body(r).files ?? {}) as Record<string, { content?: string }>;
        const contents = Object.fromEntries(Object.entries(files).map(([name, f]) => [name, String(f?.content ?? '')]));
        return { status: 201, body: this.addGist(String(body(r).description ?? ''), contents) };
      },
      'gists/get': (r) => {
        const gist = this.gists.find((g) => g.id === r.params.gist_id);
        return gist ? { body: gist } : notFound;
      },
      'gists/update': (r) => {
        const gist = this.gists.find((g) => g.id === r.params.gist_id);
        if (!gist) return notFound;
        if (typeof body(r).description === 'string') gist.description = body(r).description;
        gist.updated_at = new Date().toISOString();
        return { body: gist };
      },
      'gists/list-for-user': (r) => paged(r.params.username?.toLowerCase() === this.login.toLowerCase() ? this.gists : [], r),
      'users/get-authenticated': () => ({ body: this.owner() }),
    };
  }
}
