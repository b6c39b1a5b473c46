import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAnswers } from '../../local/sandbox/github/github-answers';
import { SimulatedGitHubWorld } from '../../local/sandbox/github/github-world';
import { SimulatedLoopWorld } from '../../local/sandbox/github/github-world-loop';
import { checkAgainstOpenApi } from '../../local/sandbox/github/openapi-check';
import { SimulatedGitHub } from '../../local/sandbox/github/simulated-github';
import type { Connection } from '../../shared/domain/model';
import { githubTools } from '../../shared/providers/github/tools';
import { triggerCatalog } from '../../shared/wiring/providers';
import { triggerListing } from '../../shared/subscriptions/trigger-listing';
import { loadProviderExamples } from '../../shared/wiring/provider-examples';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { stopTestDynamo } from '../helpers/dynamo';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The rows "new discussion, discussion comment" and "workflow run or job completed" end to
 * end: from the trigger's example event (as GET /triggers gives it) to the answer made with
 * the typed tools only, against the sandbox's simulated code host, whose state shows what
 * the tools did (a reply listed under its comment, a re-run as a new attempt).
 */
const token = 'ghp_loopRowsDemoToken000000000000000000000';
let github: SimulatedGitHub;
let loop: SimulatedLoopWorld;
let t: ToolTestContext;
let conn: Connection;
const problems: string[] = [];

beforeAll(async () => {
  github = await SimulatedGitHub.start({ record: false });
  const user = github.addUser(token, 'octocat');
  const world = new SimulatedGitHubWorld(github, 'octocat', user.id);
  world.addRepository('hello-world', { description: 'My first repository on GitHub!' });
  loop = new SimulatedLoopWorld(world, () => github.url, 'octocat');
  // The sandbox's wiring (local/sandbox/sandbox.ts): every request held to the REST description.
  const answers = { ...defaultAnswers(() => github.url), ...world.answers() };
  Object.assign(answers, loop.answers(answers.graphql));
  github.before = (req) => loop.serveLog(req);
  github.otherwise = (req) => {
    const { problems: found, match } = checkAgainstOpenApi(req);
    problems.push(...found);
    const answer = match && answers[match.operationId];
    return answer ? answer(match) : { status: 404, body: { message: 'Not Found' } };
  };
  t = await toolTestContext({ GITHUB_API_URL: github.url });
  conn = await t.connect({ repositories: ['octocat/hello-world'] }, token);
});
afterAll(async () => {
  expect(problems).toEqual([]);
  await github.close();
  await stopTestDynamo();
});

const listing = triggerListing(triggerCatalog, await loadProviderExamples());
const exampleEvent = (trigger: string) =>
  (listing.find((l) => l.id === trigger) as { exampleEvent: { event: Record<string, any> } }).exampleEvent.event;

const call = async (toolId: string, input: Record<string, unknown>): Promise<Record<string, any>> => {
  const r: ToolResult = await invokeTool(t.ctx, { toolId, connectionId: conn.id, input }, [githubTools]);
  if (!r.ok) throw new Error(`${toolId}: ${JSON.stringify(r.error)}`);
  return r.data as Record<string, any>;
};

describe('new discussion, discussion comment: read the discussion and reply', () => {
  it('an agent woken by new_discussion reads it and answers; a new_discussion_comment is replied to in its thread', async () => {
    const event = exampleEvent('github.new_discussion');
    const [owner, repo] = String(event.repository.full_name).split('/') as [string, string];
    loop.addDiscussion(owner, repo, { number: event.discussion.number, title: event.discussion.title, body: event.discussion.body });
    expect(listing.find((l) => l.id === 'github.new_discussion')?.answeredBy).toContain('github.add_discussion_comment');

    const read = await call('github.get_discussion', { owner, repo, discussion_number: event.discussion.number });
    expect(read.discussion).toMatchObject({ number: event.discussion.number, title: event.discussion.title });
    const answer = await call('github.add_discussion_comment', {
      owner,
      repo,
      discussion_number: event.discussion.number,
      body: `Thanks for "${read.discussion.title}"!`,
    });
    expect(answer).toMatchObject({ reply_to: null, discussion_number: event.discussion.number });

    // The comment it made is what a new_discussion_comment would announce: reply to it in its thread.
    const reply = await call('github.add_discussion_comment', {
      owner,
      repo,
      discussion_number: event.discussion.number,
      body: 'And a follow-up.',
      reply_to: answer.id,
    });
    expect(reply.reply_to).toBe(answer.id);
    const after = await call('github.get_discussion', { owner, repo, discussion_number: event.discussion.number });
    expect(after.comments_total).toBe(1);
    expect(after.comments[0]).toMatchObject({ id: answer.id, replies_total: 1, replies: [{ id: reply.id, body: 'And a follow-up.' }] });
  });

  it('a reply to a comment of another discussion is refused naming input.reply_to, and nothing is posted', async () => {
    loop.addDiscussion('octocat', 'hello-world', { number: 7, title: 'Other', body: 'x' });
    const other = await call('github.add_discussion_comment', {
      owner: 'octocat',
      repo: 'hello-world',
      discussion_number: 7,
      body: 'here',
    });
    const r = await invokeTool(
      t.ctx,
      {
        toolId: 'github.add_discussion_comment',
        connectionId: conn.id,
        input: { owner: 'octocat', repo: 'hello-world', discussion_number: 90, body: 'no', reply_to: other.id },
      },
      [githubTools],
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_input', details: { fields: [{ field: 'input.reply_to' }] } } });
    const ninety = await call('github.get_discussion', { owner: 'octocat', repo: 'hello-world', discussion_number: 90 });
    expect(JSON.stringify(ninety)).not.toContain('"no"');
  });

  it("a discussion outside the connection's repositories is refused before any call", async () => {
    const before = github.requests.length;
    const r = await invokeTool(
      t.ctx,
      { toolId: 'github.get_discussion', connectionId: conn.id, input: { owner: 'octocat', repo: 'secret', discussion_number: 1 } },
      [githubTools],
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(github.requests.length).toBe(before);
  });
});

describe('workflow run or job completed: find the failed job, read its log, re-run it', () => {
  it("an agent woken by workflow_run_completed lists the jobs, reads the failed one's log tail and re-runs it as a new attempt", async () => {
    const event = exampleEvent('github.workflow_run_completed');
    const [owner, repo] = String(event.repository.full_name).split('/') as [string, string];
    const runId = Number(event.workflow_run.id);
    loop.addFailedRun(owner, repo, { id: runId, name: event.workflow_run.name, head_sha: event.workflow_run.head_sha });

    const jobs = await call('github.list_jobs_for_workflow_run', { owner, repo, run_id: runId });
    const failed = jobs.items.find((j: any) => j.conclusion === 'failure');
    expect(failed).toMatchObject({ name: 'test', outcome: 'failed' });
    expect(failed.steps.find((s: any) => s.conclusion === 'failure').name).toBe('Run npm run test');

    const tail = await call('github.get_job_logs', { owner, repo, job_id: failed.id, max_bytes: 512 });
    expect(tail.text).toContain('##[error]Process completed with exit code 1.');
    expect(tail).toMatchObject({ end: tail.total_bytes, next_offset: null });
    expect(tail.end - tail.start).toBe(512);
    const before = await call('github.get_job_logs', { owner, repo, job_id: failed.id, offset: tail.previous_offset, max_bytes: 512 });
    expect(before).toMatchObject({ start: tail.previous_offset, end: tail.start, next_offset: tail.start });

    const rerun = await call('github.rerun_failed_jobs', { owner, repo, run_id: runId });
    expect(rerun).toMatchObject({ run_id: runId, rerun_requested: true, run_attempt: 2 });
    const again = await call('github.list_jobs_for_workflow_run', { owner, repo, run_id: runId });
    expect(again.items.map((j: any) => [j.name, j.run_attempt, j.conclusion])).toEqual([
      ['lint', 2, 'success'],
      ['test', 2, 'success'],
    ]);
  });

  it('a workflow_job_completed event names the job: its log is read directly, and a finished run cannot be cancelled', async () => {
    const event = exampleEvent('github.workflow_job_completed');
    const [owner, repo] = String(event.repository.full_name).split('/') as [string, string];
    const runId = Number(event.workflow_job.run_id);
    loop.addFailedRun(owner, repo, { id: runId });
    const jobs = await call('github.list_jobs_for_workflow_run', { owner, repo, run_id: runId });
    const log = await call('github.get_job_logs', { owner, repo, job_id: jobs.items[1].id, offset: 0, max_bytes: 100 });
    expect(log).toMatchObject({ start: 0, end: 100, next_offset: 100, previous_offset: null });
    const cancel = await invokeTool(
      t.ctx,
      { toolId: 'github.cancel_workflow_run', connectionId: conn.id, input: { owner, repo, run_id: runId } },
      [githubTools],
    );
    expect(cancel).toMatchObject({ ok: false, error: { code: 'conflict' } });
  });
});
