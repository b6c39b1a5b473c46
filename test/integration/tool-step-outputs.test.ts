import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { githubTools } from '../../shared/providers/github/tools';
import { createContentsnareTools } from '../../shared/providers/contentsnare/tools';
import { answerSchema, catalog } from '../../shared/tools/catalog';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import type { ToolStep } from '../../shared/tools/tool-step';
import { defaultAnswers, requiredOnly } from '../helpers/github-step-samples';
import { sampleLogPath } from '../../local/sandbox/github/github-answers';
import { startOpenApiFakeGitHub, type OpenApiFakeGitHub, type OperationResponder } from '../helpers/openapi-check';
import { startFakeContentSnare, type FakeContentSnare } from '../helpers/fake-contentsnare';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * Every step's real output checked against its declared output schema: the fake code host
 * answers every operation with the example its published OpenAPI description gives
 * (test/fixtures/github-openapi-examples.json), the fake collection service as its
 * reference describes.
 */

interface ExampleOperation {
  status: number;
  list?: boolean;
  properties: string[];
  [itemsOfKey: `${string}Properties`]: string[];
  examples: Record<string, unknown>;
}
const { operations } = JSON.parse(readFileSync(new URL('../fixtures/github-openapi-examples.json', import.meta.url), 'utf8')) as {
  operations: Record<string, ExampleOperation>;
};

const example = (op: string, name?: string): unknown => {
  const o = operations[op];
  if (!o) throw new Error(`no example of ${op}`);
  return name ? o.examples[name] : Object.values(o.examples)[0];
};

/** The description's example for every operation (GraphQL keeps the sandbox's answers: the description has none). */
function exampleAnswers(): Record<string, OperationResponder> {
  const answers: Record<string, OperationResponder> = {};
  for (const [op, o] of Object.entries(operations)) {
    answers[op] = () => (o.status === 204 ? { status: 204 } : { status: o.status, body: example(op) });
  }
  answers['repos/get-content'] = () => ({ body: example('repos/get-content', 'response-if-content-is-a-file') });
  return answers;
}

/** Steps that hand on one code-host object: the operation it comes from, and what an agent needs of it. */
const passedOn: Record<string, { op: string; needs: string[] }> = {
  'github.create_repository': {
    op: 'repos/create-for-authenticated-user',
    needs: ['id', 'full_name', 'html_url', 'default_branch', 'private', 'owner'],
  },
  'github.get_repository': {
    op: 'repos/get',
    needs: ['id', 'full_name', 'description', 'default_branch', 'visibility', 'topics', 'permissions', 'stargazers_count'],
  },
  'github.create_issue': {
    op: 'issues/create',
    needs: ['id', 'number', 'title', 'state', 'html_url', 'user', 'labels', 'assignees', 'created_at'],
  },
  'github.update_issue': { op: 'issues/get', needs: ['id', 'number', 'title', 'state', 'html_url', 'labels', 'assignees', 'updated_at'] },
  'github.create_issue_comment': { op: 'issues/create-comment', needs: ['id', 'body', 'html_url', 'user', 'created_at'] },
  'github.create_pull_request': {
    op: 'pulls/create',
    needs: ['id', 'number', 'title', 'state', 'html_url', 'head', 'base', 'draft', 'user'],
  },
  'github.get_commit': { op: 'repos/get-commit', needs: ['sha', 'html_url', 'commit', 'author', 'parents', 'stats', 'files'] },
  'github.get_workflow_run': {
    op: 'actions/get-workflow-run',
    needs: ['id', 'name', 'status', 'conclusion', 'head_branch', 'head_sha', 'html_url'],
  },
  'github.create_gist': { op: 'gists/create', needs: ['id', 'html_url', 'public', 'files', 'description', 'created_at'] },
  'github.update_gist': { op: 'gists/get', needs: ['id', 'html_url', 'files', 'description', 'updated_at'] },
  // Toolset repos.
  'github.get_release_by_tag': {
    op: 'repos/get-release-by-tag',
    needs: ['id', 'tag_name', 'name', 'body', 'html_url', 'assets', 'author'],
  },
  'github.get_latest_release': { op: 'repos/get-latest-release', needs: ['id', 'tag_name', 'name', 'body', 'html_url', 'published_at'] },
  'github.create_fork': { op: 'repos/create-fork', needs: ['id', 'full_name', 'html_url', 'default_branch', 'fork', 'owner'] },
  'github.get_pull_request': {
    op: 'pulls/get',
    needs: ['id', 'number', 'title', 'state', 'head', 'base', 'mergeable', 'merged', 'changed_files', 'requested_reviewers'],
  },
  'github.get_issue': { op: 'issues/get', needs: ['id', 'number', 'title', 'body', 'state', 'labels', 'assignees', 'comments'] },
  'github.create_pull_request_review': { op: 'pulls/create-review', needs: ['id', 'state', 'body', 'user', 'html_url', 'commit_id'] },
  'github.reply_to_review_comment': {
    op: 'pulls/create-reply-for-review-comment',
    needs: ['id', 'body', 'path', 'in_reply_to_id', 'user', 'html_url'],
  },
  'github.update_pull_request_branch': { op: 'pulls/update-branch', needs: ['message', 'url'] },
  'github.merge_pull_request': { op: 'pulls/merge', needs: ['merged', 'sha', 'message'] },
  'github.get_authenticated_user': { op: 'users/get-authenticated', needs: ['login', 'id', 'type', 'name'] },
  'github.get_collaborator_permission': { op: 'repos/get-collaborator-permission-level', needs: ['permission', 'role_name', 'user'] },
};

/** List steps: the operation that lists, and where its items are. */
const listing: Record<string, { op: string; key?: string }> = {
  'github.list_commits': { op: 'repos/list-commits' },
  'github.list_releases': { op: 'repos/list-releases' },
  'github.list_gists_for_user': { op: 'gists/list' },
  'github.list_workflow_runs': { op: 'actions/list-workflow-runs-for-repo', key: 'workflow_runs' },
  'github.search_issues_and_pull_requests': { op: 'search/issues-and-pull-requests', key: 'items' },
  // Toolsets repos and search.
  'github.list_branches': { op: 'repos/list-branches' },
  'github.list_tags': { op: 'repos/list-tags' },
  'github.search_code': { op: 'search/code', key: 'items' },
  'github.search_commits': { op: 'search/commits', key: 'items' },
  'github.search_repositories': { op: 'search/repos', key: 'items' },
  'github.list_pull_requests': { op: 'pulls/list' },
  'github.list_pull_request_files': { op: 'pulls/list-files' },
  'github.list_issues': { op: 'issues/list-for-repo' },
  'github.list_issue_comments': { op: 'issues/list-comments' },
};

/** The declared top-level fields of an object schema (of a list item for list steps). */
function declaredFields(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function itemSchema(step: ToolStep): z.ZodType {
  const items = (step.output as z.ZodObject).shape.items as z.ZodArray<z.ZodType>;
  return items.element;
}

describe("tool step outputs against the code host's published examples", () => {
  let gh: OpenApiFakeGitHub;
  let t: ToolTestContext;
  const stepOf = (id: string) => {
    const step = githubTools.steps.find((s) => s.id === id);
    if (!step) throw new Error(`no step ${id}`);
    return step;
  };
  const call = async (toolId: string, input: Record<string, unknown>): Promise<ToolResult> =>
    invokeTool(t.ctx, { toolId, connectionId: (await t.connect()).id, input }, [githubTools]);
  const ok = (r: ToolResult) => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    return r.data as Record<string, unknown>;
  };

  beforeAll(async () => {
    gh = await startOpenApiFakeGitHub({
      ...defaultAnswers(() => gh.url),
      ...exampleAnswers(),
      // The description documents this answer as a 302 with a Location header and no example.
      'actions/download-job-logs-for-workflow-run': () => ({ status: 302, headers: { location: `${gh.url}${sampleLogPath}` } }),
    });
    t = await toolTestContext({ GITHUB_API_URL: gh.url });
  });
  afterAll(() => gh.close());
  beforeEach(() => gh.reset());

  it.each(Object.keys(requiredOnly))('%s answers data that its declared output schema accepts as it is', async (id) => {
    const data = ok(await call(id, requiredOnly[id] ?? {}));
    const step = stepOf(id);
    // Strict: every field of the answer is declared, none is missing or of another type.
    expect(answerSchema(step).safeParse(data).success).toBe(true);
    expect(gh.problems).toEqual([]);
  });

  it.each(Object.entries(passedOn))("%s hands on exactly the declared fields of the code host's answer", async (id, { op, needs }) => {
    const data = ok(await call(id, requiredOnly[id] ?? {}));
    const answer = example(op) as Record<string, unknown>;
    // Nothing invented, nothing undeclared passed through.
    expect(answer).toMatchObject(Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'outcome')));
    for (const field of needs) expect(data, `${id}: ${field}`).toHaveProperty(field);
    const declared = declaredFields(stepOf(id).output).filter((f) => f !== 'outcome');
    expect(
      declared.filter((f) => !operations[op]?.properties.includes(f)),
      `${id} declares fields the code host does not document`,
    ).toEqual([]);
  });

  it.each(Object.entries(listing))("%s lists the code host's items with their declared fields", async (id, { op, key }) => {
    const data = ok(await call(id, requiredOnly[id] ?? {}));
    const answer = example(op);
    const items = (key ? (answer as Record<string, unknown[]>)[key] : answer) as Record<string, unknown>[];
    expect(data.count).toBe(items.length);
    expect((data.items as Record<string, unknown>[]).map((i) => i.id ?? i.sha)).toEqual(items.map((i) => i.id ?? i.sha));
    const declared = declaredFields(itemSchema(stepOf(id))).filter((f) => f !== 'outcome' && f !== 'score');
    const documented = (key ? operations[op]?.[`${key}Properties`] : operations[op]?.properties) as string[];
    expect(declared.filter((f) => !documented.includes(f))).toEqual([]);
  });

  it('get_repository_content answers a folder, a file, a symlink and a submodule as declared', async () => {
    for (const name of [
      'response-if-content-is-a-directory',
      'response-if-content-is-a-file',
      'response-if-content-is-a-symlink',
      'response-if-content-is-a-submodule',
    ]) {
      gh.on('repos/get-content', () => ({ body: example('repos/get-content', name) }));
      const data = ok(await call('github.get_repository_content', { owner: 'octo', repo: 'allowed', path: 'x' }));
      expect(answerSchema(stepOf('github.get_repository_content')).safeParse(data).success, name).toBe(true);
      expect(data.type, name).toBe(name.endsWith('directory') ? 'dir' : name.split('-').at(-1));
    }
  });

  it('create_workflow_dispatch passes on the run the code host names', async () => {
    const data = ok(await call('github.create_workflow_dispatch', requiredOnly['github.create_workflow_dispatch'] ?? {}));
    const answer = example('actions/create-workflow-dispatch') as { workflow_run_id: number; html_url: string };
    expect(data).toMatchObject({ dispatched: true, workflow_run_id: answer.workflow_run_id, html_url: answer.html_url });
  });

  it("publishes every step's output schema and permissions in the catalog", () => {
    for (const entry of catalog([githubTools, createContentsnareTools()])) {
      expect(entry.outputSchema.$schema, entry.id).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(Array.isArray(entry.permissions.oauthScopes), entry.id).toBe(true);
      if (entry.provider === 'github' && !entry.id.endsWith('api_call'))
        expect(Object.keys(entry.permissions.fineGrained ?? {}).length, entry.id).toBeGreaterThan(
          entry.id === 'github.list_gists_for_user' || entry.id === 'github.get_authenticated_user' ? -1 : 0,
        );
    }
  });
});

describe('collection-service step outputs against the fake partner API', () => {
  let snare: FakeContentSnare;
  let t: ToolTestContext;
  const tools = [createContentsnareTools({ sleep: async () => undefined })];
  const step = (id: string) => tools[0]!.steps.find((s) => s.id === id)!;

  beforeAll(async () => {
    snare = await startFakeContentSnare();
    t = await toolTestContext({ CONTENTSNARE_API_URL: snare.url });
  });
  afterAll(async () => {
    await snare.close();
    expect(snare.problems).toEqual([]);
  });

  it('create_client, create_request and api_call answer data their output schemas accept as it is', async () => {
    const c = await t.connect(
      { provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' },
      'cs-output-token-0123456789',
    );
    const invoke = async (toolId: string, input: unknown) => {
      const r = await invokeTool(t.ctx, { toolId, connectionId: c.id, input }, tools);
      if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
      expect(answerSchema(step(toolId)).safeParse(r.data).success, toolId).toBe(true);
      return r.data as Record<string, unknown>;
    };
    const client = await invoke('contentsnare.create_client', { name: 'Ada', email: 'ada.out@example.com', company_name: 'Acme' });
    expect(client).toMatchObject({ email: 'ada.out@example.com', full_name: 'Ada', client_companies: [{ name: 'Acme' }] });
    const request = await invoke('contentsnare.create_request', { name: 'Docs', client_id: client.id, template_name: 'Onboarding' });
    expect(request).toMatchObject({ status: 'published', sent: true, client: { id: client.id } });
    expect(await invoke('contentsnare.api_call', { method: 'GET', endpoint: 'clients' })).toMatchObject({ status: 200 });
  });
});
