import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { githubTools } from '../../shared/providers/github/tools';
import type { Connection } from '../../shared/domain/model';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { diffAnswer } from '../../local/sandbox/github/github-answers-prs';
import { defaultAnswers, sha } from '../helpers/github-step-samples';
import { startOpenApiFakeGitHub, type OpenApiFakeGitHub } from '../helpers/openapi-check';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/** A diff larger than any other answer a step may read whole (5 MB): 8 MiB of 64-byte lines. */
const bigDiff = (() => {
  const line = `+${'z'.repeat(62)}\n`;
  return `diff --git a/big.txt b/big.txt\n${line.repeat((8 * 1024 * 1024) / 64)}`;
})();

describe('the pull-request, issue and user tools against the fake code host', () => {
  let gh: OpenApiFakeGitHub;
  let t: ToolTestContext;
  const call = async (toolId: string, input: Record<string, unknown>, connection?: Connection): Promise<ToolResult> =>
    invokeTool(t.ctx, { toolId, connectionId: (connection ?? (await t.connect())).id, input }, [githubTools]);
  const ok = (r: ToolResult) => {
    if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
    return r.data as Record<string, any>;
  };
  const diffOf = { owner: 'octo', repo: 'allowed', pull_number: 5 };

  beforeAll(async () => {
    gh = await startOpenApiFakeGitHub(defaultAnswers(() => gh.url));
    t = await toolTestContext({ GITHUB_API_URL: gh.url });
  });
  afterAll(() => gh.close());
  beforeEach(() => gh.reset());

  it('reads a diff larger than any whole answer may be, one window at a time, asking for the diff media type with the token', async () => {
    gh.on('pulls/get', () => diffAnswer(bigDiff));
    const c = await t.connect({}, 'ghp_diffWindowToken000000000000000000000');
    const first = ok(await call('github.get_pull_request_diff', diffOf, c));
    expect(first).toMatchObject({ pull_number: 5, offset: 0, next_offset: first.bytes });
    expect(first.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(first.diff.startsWith('diff --git a/big.txt b/big.txt\n')).toBe(true);
    expect(first.diff.endsWith('\n')).toBe(true);
    const request = gh.server.requests[0]!;
    expect(request.headers.accept).toBe('application/vnd.github.diff');
    expect(request.headers.authorization).toMatch(/ghp_diffWindowToken/);
    expect(JSON.stringify(first)).not.toContain('ghp_');

    const last = ok(await call('github.get_pull_request_diff', { ...diffOf, offset: bigDiff.length - 100, max_bytes: 4096 }, c));
    expect(last).toMatchObject({ bytes: 100, next_offset: null });
    expect(last.diff).toBe(bigDiff.slice(-100));
    expect(gh.problems).toEqual([]);
  });

  it('waits out a rate limit on the diff, and maps a refusal to its code without following a redirect', async () => {
    let first = true;
    gh.on('pulls/get', () => {
      if (!first) return diffAnswer('diff --git a/x b/x\n');
      first = false;
      return {
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'retry-after': '2' },
        body: { message: 'API rate limit exceeded' },
      };
    });
    const sleeps = t.sleeps.length;
    expect(ok(await call('github.get_pull_request_diff', diffOf))).toMatchObject({ diff: 'diff --git a/x b/x\n', next_offset: null });
    expect(t.sleeps.slice(sleeps)).toEqual([2000]);
    expect(gh.callsOf('pulls/get')).toHaveLength(2);

    gh.on('pulls/get', () => ({ status: 302, headers: { location: 'https://elsewhere.example/diff' } }));
    expect(await call('github.get_pull_request_diff', diffOf)).toMatchObject({
      ok: false,
      error: { code: 'upstream_error', details: { status: 302 } },
    });
    gh.on('pulls/get', () => ({ status: 406, body: { message: 'Sorry, the diff exceeded the maximum number of lines (20000)' } }));
    const tooBig = await call('github.get_pull_request_diff', diffOf);
    expect(tooBig.ok).toBe(false);
    expect(!tooBig.ok && tooBig.error.message).toContain('maximum number of lines');
    gh.on('pulls/get', () => ({ status: 404, body: { message: 'Not Found' } }));
    expect(await call('github.get_pull_request_diff', diffOf)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('refuses the diff of a repository outside the allow-list before anything is sent', async () => {
    const c = await t.connect({ repositories: ['octo/allowed'] });
    expect(await call('github.get_pull_request_diff', { ...diffOf, repo: 'secret' }, c)).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(gh.server.requests).toHaveLength(0);
  });

  it('refuses a review the code host would refuse, naming the field, before anything is sent', async () => {
    const review = (input: Record<string, unknown>) => call('github.create_pull_request_review', { ...diffOf, ...input });
    const fieldsOf = (r: ToolResult) => (r.ok ? [] : (r.error.details as { fields: { field: string }[] }).fields.map((f) => f.field));
    expect(fieldsOf(await review({ event: 'REQUEST_CHANGES' }))).toEqual(['input.body']);
    expect(fieldsOf(await review({ event: 'COMMENT' }))).toEqual(['input.body']);
    expect(fieldsOf(await review({ event: 'COMMENT', comments: [{ path: 'a.ts', body: 'x' }] }))).toEqual(['input.comments.0.line']);
    expect(fieldsOf(await review({ event: 'COMMENT', comments: [{ path: 'a.ts', body: 'x', line: 2, start_line: 5 }] }))).toEqual([
      'input.comments.0.start_line',
    ]);
    expect(fieldsOf(await review({ event: 'PENDING', body: 'x' }))).toEqual(['input.event']);
    expect(gh.server.requests).toHaveLength(0);
    ok(await review({ event: 'COMMENT', comments: [{ path: 'a.ts', body: 'x', line: 2 }] }));
    expect(gh.callsOf('pulls/create-review')[0]?.json).toEqual({
      event: 'COMMENT',
      comments: [{ path: 'a.ts', body: 'x', line: 2 }],
    });
  });

  it('gives one verdict over check runs and commit statuses, naming the failing and the pending ones', async () => {
    const runs = (check_runs: object[]) => () => ({ body: { total_count: check_runs.length, check_runs } });
    const statuses = (list: object[]) => () => ({ body: { state: 'pending', statuses: list, total_count: list.length, sha: sha('a') } });
    const verdict = async () => ok(await call('github.list_checks_for_ref', { owner: 'octo', repo: 'allowed', ref: sha('a') }));

    gh.on('checks/list-for-ref', runs([{ id: 1, name: 'build', status: 'completed', conclusion: 'success' }]));
    gh.on('repos/get-combined-status-for-ref', statuses([{ context: 'ci/legacy', state: 'pending' }]));
    expect(await verdict()).toMatchObject({ state: 'pending', failing: [], pending: ['ci/legacy'] });

    gh.on(
      'checks/list-for-ref',
      runs([
        { id: 1, name: 'build', status: 'completed', conclusion: 'timed_out' },
        { id: 2, name: 'lint', status: 'in_progress', conclusion: null },
        { id: 3, name: 'docs', status: 'completed', conclusion: 'skipped' },
      ]),
    );
    expect(await verdict()).toMatchObject({ state: 'failure', failing: ['build'], pending: ['lint', 'ci/legacy'] });

    gh.on('checks/list-for-ref', runs([{ id: 3, name: 'docs', status: 'completed', conclusion: 'neutral' }]));
    gh.on('repos/get-combined-status-for-ref', statuses([{ context: 'ci/legacy', state: 'success' }]));
    expect(await verdict()).toMatchObject({ state: 'success', failing: [], pending: [] });

    gh.on('checks/list-for-ref', runs([]));
    gh.on('repos/get-combined-status-for-ref', statuses([]));
    expect(await verdict()).toMatchObject({ state: 'none', check_runs: { count: 0 }, statuses: [] });
    expect(gh.problems).toEqual([]);
  });

  it('sends labels as the object form, lists issues with labels comma-separated, and answers who the token is without a repository', async () => {
    ok(await call('github.add_labels', { owner: 'octo', repo: 'allowed', issue_number: 3, labels: ['bug', 'ui'] }));
    expect(gh.callsOf('issues/add-labels')[0]?.json).toEqual({ labels: ['bug', 'ui'] });
    ok(await call('github.remove_label', { owner: 'octo', repo: 'allowed', issue_number: 3, name: 'good first issue' }));
    expect(gh.callsOf('issues/remove-label')[0]?.params.name).toBe('good first issue');
    ok(await call('github.list_issues', { owner: 'octo', repo: 'allowed', labels: ['bug', 'ui'] }));
    expect(gh.callsOf('issues/list-for-repo')[0]?.query.get('labels')).toBe('bug,ui');
    const limited = await t.connect({ repositories: ['octo/allowed'] });
    expect(ok(await call('github.get_authenticated_user', {}, limited))).toMatchObject({ login: 'octocat' });
    expect(gh.problems).toEqual([]);
  });
});
