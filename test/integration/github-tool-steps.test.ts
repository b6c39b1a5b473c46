import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { githubTools } from '../../shared/providers/github/tools';
import type { Connection } from '../../shared/domain/model';
import { catalog } from '../../shared/tools/catalog';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { b64, defaultAnswers, requiredOnly, sha } from '../helpers/github-step-samples';
import { startOpenApiFakeGitHub, type OpenApiFakeGitHub } from '../helpers/openapi-check';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/** Rich inputs: every optional field a step passes on, so unknown or mistyped body fields show. */
const fullInputs: Record<string, Record<string, unknown>> = {
  'github.create_repository': {
    name: 'r2',
    org: 'octo-org',
    description: 'd',
    homepage: 'https://example.com',
    private: true,
    visibility: 'private',
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    is_template: false,
    auto_init: true,
    gitignore_template: 'Node',
    license_template: 'mit',
  },
  'github.get_repository_content': { owner: 'octo', repo: 'allowed', path: '/src/a b.ts', ref: 'feature/y' },
  'github.create_branch': { owner: 'octo', repo: 'allowed', ref: 'refs/heads/hotfix', from_branch: 'release/1.x' },
  'github.list_commits': {
    owner: 'octo',
    repo: 'allowed',
    sha: 'dev',
    path: 'src',
    author: 'octocat',
    committer: 'octocat',
    since: '2026-01-01T00:00:00Z',
    until: '2026-02-01T00:00:00+01:00',
    per_page: 50,
    max_items: 10,
  },
  'github.create_or_update_file_contents': {
    owner: 'octo',
    repo: 'allowed',
    path: 'bin/x.png',
    message: 'm',
    content: b64('png'),
    encoding: 'base64',
    branch: 'dev',
    sha: sha('f'),
    committer: { name: 'Bot', email: 'bot@example.com' },
    author: { name: 'A', email: 'a@example.com' },
  },
  'github.create_issue': {
    owner: 'octo',
    repo: 'allowed',
    title: 'T',
    body: 'B',
    assignees: ['octocat'],
    labels: ['bug'],
    milestone: 1,
    type: 'Bug',
  },
  'github.update_issue': {
    owner: 'octo',
    repo: 'allowed',
    issue_number: 3,
    title: 'T',
    body: 'B',
    state: 'closed',
    state_reason: 'not_planned',
    milestone: null,
    labels: [],
    assignees: ['hubot'],
    type: null,
  },
  'github.search_issues_and_pull_requests': { q: 'repo:octo/allowed is:pr', sort: 'updated', order: 'asc', per_page: 10, max_items: 5 },
  'github.create_pull_request': {
    owner: 'octo',
    repo: 'allowed',
    title: 'T',
    head: 'octocat:feature',
    head_repo: 'fork',
    base: 'dev',
    body: 'B',
    draft: true,
    maintainer_can_modify: false,
  },
  'github.update_project_v2_item_status': {
    project_id: 'PVT_project1',
    item_id: 'PVTI_item1',
    field_id: 'PVTSSF_status',
    field_name: 'ignored when field_id is given',
    status: 'TODO',
  },
  'github.create_workflow_dispatch': {
    owner: 'octo',
    repo: 'allowed',
    workflow_id: 123,
    ref: 'v1.2.0',
    inputs: { env: 'prod', dry: true, n: 2 },
  },
  'github.list_workflow_runs': {
    owner: 'octo',
    repo: 'allowed',
    workflow_id: 'ci.yml',
    actor: 'octocat',
    branch: 'main',
    event: 'push',
    status: 'failure',
    created: '>=2026-01-01',
    head_sha: sha('a'),
    per_page: 20,
    max_items: 20,
  },
  'github.create_gist': { description: 'd', public: true, files: { 'a.md': { content: 'x' }, 'b.ts': { content: 'y' } } },
  'github.update_gist': {
    gist_id: 'abc123',
    description: 'd',
    files: { 'a.md': { content: 'z' }, 'b.ts': { filename: 'c.ts' }, 'gone.txt': null },
  },
  'github.list_gists_for_user': { username: 'octocat', since: '2026-01-01T00:00:00Z', per_page: 5, max_items: 5 },
  'github.list_releases': { owner: 'octo', repo: 'allowed', per_page: 100, max_items: 1000 },
  // Toolsets pull_requests, issues, users and context.
  'github.get_pull_request_diff': { owner: 'octo', repo: 'allowed', pull_number: 5, offset: 10, max_bytes: 2048 },
  'github.list_pull_request_files': { owner: 'octo', repo: 'allowed', pull_number: 5, per_page: 30, max_items: 30 },
  'github.list_checks_for_ref': { owner: 'octo', repo: 'allowed', ref: sha('a'), check_name: 'build', per_page: 50, max_items: 50 },
  'github.create_pull_request_review': {
    owner: 'octo',
    repo: 'allowed',
    pull_number: 5,
    event: 'REQUEST_CHANGES',
    body: 'Please rename',
    commit_id: sha('a'),
    comments: [
      { path: 'src/a.ts', body: 'here', line: 4, side: 'RIGHT', start_line: 2, start_side: 'RIGHT' },
      { path: 'src/b.ts', body: 'old way', position: 3 },
    ],
  },
  'github.update_pull_request_branch': { owner: 'octo', repo: 'allowed', pull_number: 5, expected_head_sha: sha('a') },
  'github.merge_pull_request': {
    owner: 'octo',
    repo: 'allowed',
    pull_number: 5,
    merge_method: 'squash',
    commit_title: 'T',
    commit_message: 'M',
    sha: sha('a'),
  },
  'github.list_pull_requests': {
    owner: 'octo',
    repo: 'allowed',
    state: 'all',
    head: 'octo:feature',
    base: 'main',
    sort: 'updated',
    direction: 'asc',
    per_page: 10,
    max_items: 10,
  },
  'github.list_issue_comments': {
    owner: 'octo',
    repo: 'allowed',
    issue_number: 3,
    since: '2026-01-01T00:00:00Z',
    per_page: 5,
    max_items: 5,
  },
  'github.add_labels': { owner: 'octo', repo: 'allowed', issue_number: 3, labels: ['bug', 'good first issue'] },
  'github.remove_label': { owner: 'octo', repo: 'allowed', issue_number: 3, name: 'good first issue' },
  'github.list_issues': {
    owner: 'octo',
    repo: 'allowed',
    state: 'closed',
    labels: ['bug', 'ui'],
    assignee: '*',
    creator: 'octocat',
    mentioned: 'hubot',
    milestone: 'none',
    since: '2026-01-01T00:00:00Z',
    sort: 'comments',
    direction: 'asc',
    per_page: 20,
    max_items: 20,
  },
};

describe('code-host tool steps against the OpenAPI description', () => {
  let gh: OpenApiFakeGitHub;
  let t: ToolTestContext;
  const tools = [githubTools];
  const call = async (toolId: string, input: Record<string, unknown>, connection?: Connection): Promise<ToolResult> => {
    // A connection per call: the code host's write spacing is per account (throttle id).
    const c = connection ?? (await t.connect());
    return invokeTool(t.ctx, { toolId, connectionId: c.id, input }, tools);
  };
  const ok = (r: ToolResult) => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    return r.data as Record<string, unknown>;
  };

  beforeAll(async () => {
    gh = await startOpenApiFakeGitHub(defaultAnswers(() => gh.url));
    t = await toolTestContext({ GITHUB_API_URL: gh.url });
  });
  afterAll(() => gh.close());
  beforeEach(() => gh.reset());

  it("lists the pre-built steps (the contract's 25 first, then the pull-request, issue and user tools) and api_call, in order", () => {
    const ids = catalog(allProviderTools()).map((e) => e.id);
    expect(ids).toEqual([
      'github.create_repository',
      'github.get_repository',
      'github.get_repository_content',
      'github.star_repo',
      'github.create_branch',
      'github.get_commit',
      'github.list_commits',
      'github.create_or_update_file_contents',
      'github.create_issue',
      'github.create_issue_comment',
      'github.update_issue',
      'github.get_issue_assignees',
      'github.search_issues_and_pull_requests',
      'github.create_pull_request',
      'github.get_reviewers',
      'github.update_project_v2_item_status',
      'github.create_workflow_dispatch',
      'github.enable_workflow',
      'github.disable_workflow',
      'github.get_workflow_run',
      'github.list_workflow_runs',
      'github.create_gist',
      'github.update_gist',
      'github.list_gists_for_user',
      'github.list_releases',
      'github.list_branches',
      'github.list_tags',
      'github.get_release_by_tag',
      'github.get_latest_release',
      'github.compare_commits',
      'github.get_tree',
      'github.commit_files',
      'github.delete_file',
      'github.create_fork',
      'github.search_code',
      'github.search_commits',
      'github.search_repositories',
      'github.get_pull_request',
      'github.get_pull_request_diff',
      'github.list_pull_request_files',
      'github.list_checks_for_ref',
      'github.create_pull_request_review',
      'github.reply_to_review_comment',
      'github.update_pull_request_branch',
      'github.merge_pull_request',
      'github.list_pull_requests',
      'github.get_issue',
      'github.list_issue_comments',
      'github.add_labels',
      'github.remove_label',
      'github.list_issues',
      'github.get_authenticated_user',
      'github.get_collaborator_permission',
      'github.get_discussion',
      'github.add_discussion_comment',
      'github.list_jobs_for_workflow_run',
      'github.get_job_logs',
      'github.rerun_failed_jobs',
      'github.cancel_workflow_run',
      'github.api_call',
      'contentsnare.create_client',
      'contentsnare.create_request',
      'contentsnare.api_call',
      'contentsnare.get_request',
      'contentsnare.list_requests',
      'contentsnare.list_clients',
    ]);
  });

  it('describes each step with a JSON Schema whose required properties are the ones this test calls it with', () => {
    for (const entry of catalog([githubTools]).filter((e) => e.id !== 'github.api_call')) {
      const required = ((entry.inputSchema.required as string[] | undefined) ?? []).slice().sort();
      expect({ id: entry.id, required }).toEqual({ id: entry.id, required: Object.keys(requiredOnly[entry.id] ?? { missing: 1 }).sort() });
      expect(entry.title.length, entry.id).toBeGreaterThan(3);
      expect(entry.outputSchema.type ?? entry.outputSchema.anyOf, entry.id).toBeDefined();
      expect(entry.permissions.oauthScopes, entry.id).toBeDefined();
    }
  });

  it.each(Object.keys(requiredOnly))('%s with only its required inputs sends documented, well-formed requests', async (id) => {
    ok(await call(id, requiredOnly[id] ?? {}));
    expect(gh.calls.length).toBeGreaterThan(0);
    expect(gh.problems).toEqual([]);
  });

  it.each(Object.keys(fullInputs))('%s with every optional input sends only documented fields', async (id) => {
    ok(await call(id, fullInputs[id] ?? {}));
    expect(gh.calls.length).toBeGreaterThan(0);
    expect(gh.problems).toEqual([]);
  });

  it('sends the token of the connection on every request and nothing to the caller', async () => {
    const c = await t.connect({}, 'ghp_stepsTokenShouldOnlyGoToHost0000000000');
    const data = ok(await call('github.get_repository', { owner: 'octo', repo: 'allowed' }, c));
    expect(gh.server.requests[0]?.headers.authorization).toMatch(/ghp_stepsTokenShouldOnlyGoToHost/);
    expect(JSON.stringify(data)).not.toContain('ghp_');
  });

  it('create_or_update_file_contents reads the current sha on the branch it writes to', async () => {
    const data = ok(
      await call('github.create_or_update_file_contents', {
        owner: 'octo',
        repo: 'allowed',
        path: 'a.md',
        message: 'm',
        content: 'new',
        branch: 'dev',
      }),
    );
    const [read] = gh.callsOf('repos/get-content');
    expect(read?.query.get('ref')).toBe('dev');
    const [write] = gh.callsOf('repos/create-or-update-file-contents');
    expect(write?.json).toMatchObject({ branch: 'dev', sha: sha('b'), content: b64('new') });
    expect(data.created).toBe(false);
  });

  it('create_or_update_file_contents creates the file without a sha when the branch has none', async () => {
    gh.on('repos/get-content', () => ({ status: 404, body: { message: 'Not Found' } }));
    const data = ok(
      await call('github.create_or_update_file_contents', { owner: 'octo', repo: 'allowed', path: 'new.md', message: 'm', content: 'x' }),
    );
    expect(gh.callsOf('repos/create-or-update-file-contents')[0]?.json).not.toHaveProperty('sha');
    expect(data.created).toBe(true);
  });

  it('create_or_update_file_contents refuses a folder path before writing', async () => {
    gh.on('repos/get-content', () => ({ body: [{ type: 'file', name: 'x' }] }));
    const r = await call('github.create_or_update_file_contents', {
      owner: 'octo',
      repo: 'allowed',
      path: 'src',
      message: 'm',
      content: 'x',
    });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'input.path' }] } } });
    expect(gh.callsOf('repos/create-or-update-file-contents')).toHaveLength(0);
  });

  it('create_branch starts from the default branch unless told otherwise', async () => {
    const data = ok(await call('github.create_branch', { owner: 'octo', repo: 'allowed', ref: 'feature/x' }));
    expect(gh.callsOf('git/get-ref')[0]?.params.ref).toBe('heads/trunk');
    expect(gh.callsOf('git/create-ref')[0]?.json).toEqual({ ref: 'refs/heads/feature/x', sha: sha('a') });
    expect(data).toMatchObject({ ref: 'refs/heads/feature/x', from: 'trunk' });

    gh.reset();
    ok(await call('github.create_branch', { owner: 'octo', repo: 'allowed', ref: 'b2', sha: sha('9') }));
    expect(gh.callsOf('repos/get')).toHaveLength(0);
    expect(gh.callsOf('git/create-ref')[0]?.json).toEqual({ ref: 'refs/heads/b2', sha: sha('9') });
  });

  it('get_reviewers merges requested reviewers and submitted reviews into one verdict per person', async () => {
    gh.on('pulls/list-requested-reviewers', () => ({
      body: { users: [{ login: 'carol' }, { login: 'Alice' }], teams: [{ slug: 'core' }] },
    }));
    gh.on('pulls/list-reviews', () => ({
      body: [
        { user: { login: 'alice' }, state: 'CHANGES_REQUESTED', submitted_at: '2026-01-01T00:00:00Z' },
        { user: { login: 'bob' }, state: 'APPROVED', submitted_at: '2026-01-02T00:00:00Z' },
        { user: { login: 'bob' }, state: 'COMMENTED', submitted_at: '2026-01-03T00:00:00Z' },
        { user: { login: 'dave' }, state: 'COMMENTED', submitted_at: '2026-01-03T00:00:00Z' },
        { user: { login: 'erin' }, state: 'PENDING' },
      ],
    }));
    const data = ok(await call('github.get_reviewers', { owner: 'octo', repo: 'allowed', pull_number: 5 }));
    const byLogin = Object.fromEntries(
      (data.reviewers as { login: string; requested: boolean; state: string | null }[]).map((r) => [r.login.toLowerCase(), r]),
    );
    expect(byLogin.alice).toMatchObject({ requested: true, state: 'CHANGES_REQUESTED' });
    expect(byLogin.bob).toMatchObject({ requested: false, state: 'APPROVED' });
    expect(byLogin.carol).toMatchObject({ requested: true, state: null });
    expect(byLogin.dave).toMatchObject({ requested: false, state: 'COMMENTED' });
    expect(byLogin.erin).toBeUndefined();
    expect(data).toMatchObject({ approved: ['bob'], changes_requested: ['alice'], teams: [{ slug: 'core' }] });
  });

  it('list steps follow pages and stop at max_items, saying the list was cut', async () => {
    gh.on('repos/list-releases', (r) => {
      const page = Number(r.query.get('page') ?? '1');
      const per = Number(r.query.get('per_page'));
      const items = Array.from({ length: per }, (_, i) => ({ id: (page - 1) * per + i + 1, tag_name: `v${(page - 1) * per + i + 1}` }));
      const link = page < 5 ? `<${gh.url}/repos/octo/allowed/releases?per_page=${per}&page=${page + 1}>; rel="next"` : '';
      return { headers: link ? { link } : ({} as Record<string, string>), body: items };
    });
    const data = ok(await call('github.list_releases', { owner: 'octo', repo: 'allowed', per_page: 2, max_items: 5 }));
    expect((data.items as { id: number }[]).map((i) => i.id)).toEqual([1, 2, 3, 4, 5]);
    expect(data).toMatchObject({ count: 5, truncated: true });
    expect(gh.callsOf('repos/list-releases')).toHaveLength(3);
    expect(gh.problems).toEqual([]);

    gh.reset();
    gh.on('repos/list-releases', () => ({ body: [{ id: 1, tag_name: 'v1' }] }));
    expect(ok(await call('github.list_releases', { owner: 'octo', repo: 'allowed' }))).toMatchObject({ count: 1, truncated: false });
  });

  it('list_workflow_runs and get_workflow_run give the outcome beside the conclusion', async () => {
    const runs = ok(await call('github.list_workflow_runs', { owner: 'octo', repo: 'allowed' }));
    expect(runs.items).toEqual([
      expect.objectContaining({ id: 1, conclusion: 'success', outcome: 'succeeded' }),
      expect.objectContaining({ id: 2, conclusion: null, outcome: null }),
    ]);
    expect(runs.total_count).toBe(2);
    expect(ok(await call('github.get_workflow_run', { owner: 'octo', repo: 'allowed', run_id: 4 }))).toMatchObject({
      conclusion: 'timed_out',
      outcome: 'failed',
    });
  });

  it('update_issue sends labels and assignees as the whole new set, and says so', async () => {
    ok(await call('github.update_issue', { owner: 'octo', repo: 'allowed', issue_number: 3, labels: [] }));
    expect(gh.callsOf('issues/update')[0]?.json).toEqual({ labels: [] });
    const entry = catalog([githubTools]).find((e) => e.id === 'github.update_issue');
    expect(entry?.description).toMatch(/replace the whole set/);
  });

  it.each([
    ['github.update_issue', { owner: 'octo', repo: 'allowed', issue_number: 3 }, 'issues/get', 'issues/update'],
    ['github.update_gist', { gist_id: 'abc123' }, 'gists/get', 'gists/update'],
  ])('%s with nothing to change writes nothing and returns the record as it is', async (id, input, read, write) => {
    ok(await call(id, input));
    expect(gh.callsOf(read)).toHaveLength(1);
    expect(gh.callsOf(write)).toHaveLength(0);
  });

  it('update_project_v2_item_status sets the option named by status through updateProjectV2ItemFieldValue', async () => {
    const data = ok(
      await call('github.update_project_v2_item_status', { project_id: 'PVT_project1', item_id: 'PVTI_item1', status: 'in progress' }),
    );
    const mutation = gh.callsOf('graphql').at(-1)?.json as { query: string; variables: Record<string, string> };
    expect(mutation.query).toContain('updateProjectV2ItemFieldValue');
    expect(mutation.variables).toEqual({ project: 'PVT_project1', item: 'PVTI_item1', field: 'PVTSSF_status', option: 'opt_doing' });
    expect(data).toMatchObject({ status: 'In Progress', option_id: 'opt_doing' });
  });

  it('update_project_v2_item_status names the options when the status is not one of them, and changes nothing', async () => {
    const r = await call('github.update_project_v2_item_status', { project_id: 'PVT_project1', item_id: 'PVTI_item1', status: 'Shipped' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(JSON.stringify(r)).toContain('Todo, In Progress');
    expect(gh.callsOf('graphql')).toHaveLength(1);
  });

  it('maps GraphQL errors to stable codes', async () => {
    gh.on('graphql', () => ({
      body: { data: null, errors: [{ type: 'NOT_FOUND', message: "Could not resolve to a node with the global id of 'PVT_x'" }] },
    }));
    const r = await call('github.update_project_v2_item_status', { project_id: 'PVT_xxxx', item_id: 'PVTI_item1', status: 'Todo' });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it.each([
    [
      'github.create_or_update_file_contents',
      { owner: 'octo', repo: 'allowed', path: 'a.md', message: 'm', content: 'x' },
      'repos/create-or-update-file-contents',
    ],
    ['github.update_issue', { owner: 'octo', repo: 'allowed', issue_number: 3, state: 'closed' }, 'issues/update'],
    ['github.disable_workflow', { owner: 'octo', repo: 'allowed', workflow_id: 'ci.yml' }, 'actions/disable-workflow'],
    ['github.update_gist', { gist_id: 'abc123', files: { 'a.md': null } }, 'gists/update'],
    ['github.update_project_v2_item_status', { project_id: 'PVT_project1', item_id: 'PVTI_item1', status: 'Todo' }, 'graphql-mutation'],
  ])('%s with dryRun describes the request and changes nothing', async (id, input, write) => {
    const data = ok(await call(id, { ...input, dryRun: true }));
    expect(data).toMatchObject({ dryRun: true, request: { method: expect.any(String), url: expect.any(String) } });
    expect(JSON.stringify(data)).not.toMatch(/ghp_|authorization/i);
    const writes = gh.calls.filter(
      (c) =>
        c.operationId === write || (write === 'graphql-mutation' && String((c.json as { query?: string })?.query).startsWith('mutation')),
    );
    expect(writes).toHaveLength(0);
    expect(catalog([githubTools]).find((e) => e.id === id)?.destructive).toBe(true);
  });

  it('refuses a repository outside the connection allow-list before anything is sent', async () => {
    const c = await t.connect({ repositories: ['octo/allowed'] });
    const r = await call('github.create_issue', { owner: 'octo', repo: 'secret', title: 'x' }, c);
    expect(r).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const created = await call('github.create_repository', { name: 'another' }, c);
    expect(created).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(gh.server.requests).toHaveLength(0);
    ok(await call('github.create_issue', { owner: 'OCTO', repo: 'Allowed', title: 'x' }, c));
  });

  it('leaves search hits in other repositories out when the connection is limited', async () => {
    const c = await t.connect({ repositories: ['octo/allowed'] });
    const data = ok(await call('github.search_issues_and_pull_requests', { q: 'is:issue' }, c));
    expect(data).toMatchObject({ count: 1, left_out: 1, total_count: 2 });
    expect((data.items as { number: number }[]).map((i) => i.number)).toEqual([1]);
  });

  it('names every bad field and sends nothing for invalid input, including unknown fields', async () => {
    const r = await call('github.create_issue', { owner: 'octo', repo: '..', title: '', lables: ['bug'] });
    expect(r.ok).toBe(false);
    const fields = (r as unknown as { error: { details: { fields: { field: string }[] } } }).error.details.fields.map((f) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['input.repo', 'input.title']));
    expect(JSON.stringify(r)).toContain('lables');
    expect(gh.server.requests).toHaveLength(0);
  });

  it('refuses ".." segments in repository paths', async () => {
    const r = await call('github.get_repository_content', { owner: 'octo', repo: 'allowed', path: 'docs/../../etc' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'input.path' }] } } });
    expect(gh.server.requests).toHaveLength(0);
  });

  it('returns a text file decoded beside its base64 content, and a folder as its entries', async () => {
    expect(ok(await call('github.get_repository_content', { owner: 'octo', repo: 'allowed', path: 'README.md' }))).toMatchObject({
      text: 'hello\n',
      sha: sha('b'),
    });
    gh.on('repos/get-content', () => ({
      body: [
        { type: 'dir', name: 'src', path: 'src' },
        { type: 'file', name: 'a.md', path: 'a.md' },
      ],
    }));
    expect(ok(await call('github.get_repository_content', { owner: 'octo', repo: 'allowed' }))).toMatchObject({
      type: 'dir',
      entries: [{ name: 'src' }, { name: 'a.md' }],
    });
  });

  it('answers upstream_error, not success, when the code host answers a redirect the step does not follow', async () => {
    gh.on('repos/get', () => ({ status: 302, headers: { location: 'https://elsewhere.example/repos/octo/allowed' } }));
    const r = await call('github.get_repository', { owner: 'octo', repo: 'allowed' });
    expect(r).toMatchObject({ ok: false, error: { code: 'upstream_error', details: { status: 302 } } });
    expect(!r.ok && r.error.message).toMatch(/302.*redirect.*elsewhere\.example/);
  });

  it('answers upstream_error, not the text as data, when the code host answers malformed JSON', async () => {
    gh.on('repos/get', () => ({ headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"id": 1, "full_name": ' }));
    const r = await call('github.get_repository', { owner: 'octo', repo: 'allowed' });
    expect(r).toMatchObject({ ok: false, error: { code: 'upstream_error' } });
    expect(!r.ok && r.error.message).toMatch(/github\.get_repository.*not JSON/);
  });

  it('answers upstream_error naming the field when an answer lacks what the step returns', async () => {
    gh.on('repos/get', () => ({ body: { name: 'allowed' } }));
    const r = await call('github.get_repository', { owner: 'octo', repo: 'allowed' });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'upstream_error', details: { problems: expect.arrayContaining([expect.stringMatching(/^id: /)]) } },
    });
  });

  it('maps a permission 403 to forbidden without retrying, and a 404 to not_found', async () => {
    gh.on('issues/create', () => ({
      status: 403,
      headers: { 'x-accepted-github-permissions': 'issues=write' },
      body: { message: 'Resource not accessible by integration' },
    }));
    const r = await call('github.create_issue', { owner: 'octo', repo: 'allowed', title: 'x' });
    expect(r).toMatchObject({ ok: false, error: { code: 'forbidden', details: { status: 403, acceptedPermissions: 'issues=write' } } });
    expect(gh.callsOf('issues/create')).toHaveLength(1);
    gh.on('repos/get', () => ({ status: 404, body: { message: 'Not Found' } }));
    expect(await call('github.get_repository', { owner: 'octo', repo: 'gone' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('waits out a rate limit with a reset and then succeeds', async () => {
    let first = true;
    gh.on('repos/get', (r) => {
      if (first) {
        first = false;
        return {
          status: 403,
          headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1) },
          body: { message: 'API rate limit exceeded' },
        };
      }
      return { body: { id: 1, full_name: `${r.params.owner}/${r.params.repo}` } };
    });
    expect(ok(await call('github.get_repository', { owner: 'octo', repo: 'allowed' }))).toMatchObject({ id: 1 });
    expect(gh.callsOf('repos/get')).toHaveLength(2);
  });
});

describe('code-host tool steps on an enterprise server', () => {
  let gh: OpenApiFakeGitHub;
  let t: ToolTestContext;
  beforeAll(async () => {
    gh = await startOpenApiFakeGitHub(
      defaultAnswers(() => gh.url),
      '/api/v3',
    );
    // GITHUB_API_URL points elsewhere: the connection's own base must win.
    t = await toolTestContext({ GITHUB_API_URL: 'http://127.0.0.1:9' });
  });
  afterAll(() => gh.close());

  it('sends REST calls under the connection base and GraphQL to /api/graphql beside it', async () => {
    const c = await t.connect({ apiBaseUrl: gh.url });
    const tools = [githubTools];
    const repo = await invokeTool(
      t.ctx,
      { toolId: 'github.get_repository', connectionId: c.id, input: { owner: 'octo', repo: 'allowed' } },
      tools,
    );
    expect(repo).toMatchObject({ ok: true, data: { full_name: 'octo/allowed' } });
    const status = await invokeTool(
      t.ctx,
      {
        toolId: 'github.update_project_v2_item_status',
        connectionId: c.id,
        input: { project_id: 'PVT_project1', item_id: 'PVTI_item1', status: 'Todo' },
      },
      tools,
    );
    expect(status, JSON.stringify(status)).toMatchObject({ ok: true });
    expect(gh.server.requests.map((r) => r.path)).toEqual(['/api/v3/repos/octo/allowed', '/api/graphql', '/api/graphql']);
    expect(gh.problems).toEqual([]);
  });
});
