import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTriggerCommand } from '../../local/cli/trigger';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';
import { until } from '../helpers/runtime-support';

/**
 * From a trigger's example event to the answer an agent makes with typed tools only, in the
 * sandbox (`npm run dev`): a review request (read the pull request, its diff, files and
 * checks; review, reply, update the branch, merge), a new issue (read it with its comments,
 * label it, list issues) and a new collaborator (who am I, what may they do).
 */

const key = 'sandbox-prs-test-platform-key-0123456789abcdef';
const [owner, repo] = demo.repository.split('/') as [string, string];

let rt: LocalRuntime;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-prs-'));
  rt = await startLocalRuntime({
    env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
    write: () => {},
    sandbox: true,
  });
});
afterAll(async () => {
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A typed tool through `POST /tools/{id}/invoke` with the sandbox's demo connection. */
async function tool(id: string, input: Record<string, unknown>): Promise<any> {
  const r = await call('POST', `/tools/${id}/invoke`, { connectionId: rt.sandbox!.demo.github.id, input });
  return r.body;
}
async function data(id: string, input: Record<string, unknown>): Promise<any> {
  const r = await tool(id, input);
  if (!r.ok) throw new Error(`${id}: ${JSON.stringify(r.error)}`);
  return r.data;
}

/** Subscribes an agent, fires the trigger's example event (with `sets`) and answers the event the agent receives. */
async function wokenBy(trigger: string, sets: string[]): Promise<any> {
  const sub = await call('POST', '/subscriptions', {
    connectionId: rt.sandbox!.demo.github.id,
    trigger,
    agentId: `agent-${trigger}`,
    repository: demo.repository,
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);
  const lines: string[] = [];
  const code = await runTriggerCommand([trigger, '--url', rt.url, '--subscription', sub.body.id, ...sets.flatMap((s) => ['--set', s])], {
    env: { PLATFORM_API_KEY: key },
    out: (l) => lines.push(l),
  });
  expect(code, lines.join('\n')).toBe(0);
  const mine = async () => ((await call('GET', '/sandbox/inbox')).body.events as any[]).find((e) => e.body.subscriptionId === sub.body.id);
  await until(`the ${trigger} event in the inbox`, async () => (await mine()) !== undefined);
  return (await mine()).body.event;
}

describe('an agent woken in the sandbox answers with typed tools only', () => {
  it('review request: reads the pull request, its diff window by window, files and checks; reviews, replies, updates the branch and merges', async () => {
    // The pull request the review is requested on: a branch with a changed and a new file.
    await data('github.create_branch', { owner, repo, ref: 'feature', from_branch: 'main' });
    const readme = await data('github.get_repository_content', { owner, repo, path: 'README.md', ref: 'feature' });
    const guide = Array.from({ length: 80 }, (_, i) => `Line ${i + 1} of the guide.`).join('\n');
    await data('github.create_or_update_file_contents', {
      owner,
      repo,
      path: 'README.md',
      message: 'Say more',
      content: `# ${repo}\nMore words.\n`,
      branch: 'feature',
      sha: readme.sha,
    });
    await data('github.create_or_update_file_contents', {
      owner,
      repo,
      path: 'docs/guide.md',
      message: 'Guide',
      content: `${guide}\n`,
      branch: 'feature',
    });
    const opened = await data('github.create_pull_request', { owner, repo, title: 'Docs', head: 'feature', base: 'main' });

    const event = await wokenBy('github.new_review_request', [`number=${opened.number}`, `pull_request.number=${opened.number}`]);
    const [o, r] = String(event.repository.full_name).split('/');
    const pull_number = Number(event.pull_request.number);
    expect(pull_number).toBe(opened.number);

    const pull = await data('github.get_pull_request', { owner: o, repo: r, pull_number });
    expect(pull).toMatchObject({
      title: 'Docs',
      state: 'open',
      merged: false,
      mergeable: true,
      changed_files: 2,
      head: { ref: 'feature' },
    });

    // The diff, read in windows of at most 1 KiB that end at line breaks and join up to the whole.
    const windows: any[] = [];
    for (let offset: number | null = 0; offset !== null; offset = windows.at(-1).next_offset) {
      windows.push(await data('github.get_pull_request_diff', { owner: o, repo: r, pull_number, offset, max_bytes: 1024 }));
      expect(windows.length).toBeLessThan(10);
    }
    expect(windows.length).toBeGreaterThan(1);
    for (const w of windows.slice(0, -1)) expect(w.diff.endsWith('\n') && w.bytes <= 1024).toBe(true);
    const diff = windows.map((w) => w.diff).join('');
    expect(diff).toContain('diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n');
    expect(diff).toContain('+More words.');
    expect(diff).toContain('+++ b/docs/guide.md\n@@ -0,0 +1,80 @@\n+Line 1 of the guide.');

    const files = await data('github.list_pull_request_files', { owner: o, repo: r, pull_number });
    expect(files.items.map((f: any) => [f.filename, f.status, f.additions])).toEqual([
      ['README.md', 'modified', 1],
      ['docs/guide.md', 'added', 80],
    ]);

    // No workflow has run on the head yet; a dispatched run reports as its check.
    expect(await data('github.list_checks_for_ref', { owner: o, repo: r, ref: pull.head.sha })).toMatchObject({ state: 'none' });
    await data('github.create_workflow_dispatch', { owner: o, repo: r, workflow_id: 'ci.yml', ref: 'feature' });
    const checks = await data('github.list_checks_for_ref', { owner: o, repo: r, ref: pull.head.sha });
    expect(checks).toMatchObject({ state: 'success', failing: [], check_runs: { count: 1 } });

    // As on the code host, the author cannot approve their own pull request; a comment review with an inline comment goes in.
    const approve = await tool('github.create_pull_request_review', { owner: o, repo: r, pull_number, event: 'APPROVE' });
    expect(approve.ok).toBe(false);
    expect(approve.error.message).toContain('Can not approve your own pull request');
    const review = await data('github.create_pull_request_review', {
      owner: o,
      repo: r,
      pull_number,
      event: 'COMMENT',
      body: 'Reads well.',
      comments: [{ path: 'docs/guide.md', line: 2, body: 'Say which guide.' }],
    });
    expect(review).toMatchObject({ state: 'COMMENTED', body: 'Reads well.', commit_id: pull.head.sha, user: { login: demo.githubLogin } });
    const reviewers = await data('github.get_reviewers', { owner: o, repo: r, pull_number });
    expect(reviewers.reviewers).toMatchObject([{ login: demo.githubLogin, state: 'COMMENTED', reviews: 1 }]);

    // The inline comment's id, as a review-comment event would name it.
    const listed = (await (
      await fetch(`${rt.sandbox!.githubUrl}/repos/${o}/${r}/pulls/${pull_number}/comments`, {
        headers: { authorization: `token ${demo.githubToken}` },
      })
    ).json()) as Array<{ id: number; path: string; line: number }>;
    expect(listed).toMatchObject([{ path: 'docs/guide.md', line: 2 }]);
    const reply = await data('github.reply_to_review_comment', {
      owner: o,
      repo: r,
      pull_number,
      comment_id: listed[0]!.id,
      body: 'Fixed.',
    });
    expect(reply).toMatchObject({ body: 'Fixed.', in_reply_to_id: listed[0]!.id, path: 'docs/guide.md' });

    // The base moves on; updating the branch merges it into the head, which moves too.
    const noNews = await tool('github.update_pull_request_branch', { owner: o, repo: r, pull_number });
    expect(noNews.ok).toBe(false);
    await data('github.create_or_update_file_contents', {
      owner: o,
      repo: r,
      path: 'CHANGELOG.md',
      message: 'Changelog',
      content: '# Changes\n',
    });
    expect(
      await data('github.update_pull_request_branch', { owner: o, repo: r, pull_number, expected_head_sha: pull.head.sha }),
    ).toMatchObject({
      message: 'Updating pull request branch.',
    });
    const updated = await data('github.get_pull_request', { owner: o, repo: r, pull_number });
    expect(updated.head.sha).not.toBe(pull.head.sha);
    expect(updated.changed_files).toBe(2);

    // Only the head that was checked is merged.
    const stale = await tool('github.merge_pull_request', { owner: o, repo: r, pull_number, sha: pull.head.sha });
    expect(stale.ok).toBe(false);
    const dry = await data('github.merge_pull_request', { owner: o, repo: r, pull_number, sha: updated.head.sha, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, request: { method: 'PUT' } });
    const merged = await data('github.merge_pull_request', {
      owner: o,
      repo: r,
      pull_number,
      sha: updated.head.sha,
      merge_method: 'merge',
    });
    expect(merged).toMatchObject({ merged: true, message: 'Pull Request successfully merged' });
    expect(await data('github.get_pull_request', { owner: o, repo: r, pull_number })).toMatchObject({
      state: 'closed',
      merged: true,
      merge_commit_sha: merged.sha,
      merged_by: { login: demo.githubLogin },
    });
    const closed = await data('github.list_pull_requests', { owner: o, repo: r, state: 'closed', head: `${o}:feature` });
    expect(closed.items.map((p: any) => p.number)).toEqual([pull_number]);
    expect((await data('github.list_pull_requests', { owner: o, repo: r })).items).toEqual([]);
    expect((await tool('github.merge_pull_request', { owner: o, repo: r, pull_number })).ok).toBe(false);
  });

  it('new issue: reads the issue and its comments, labels it, takes a label off again and finds it among the labelled issues', async () => {
    const event = await wokenBy('github.new_issue', ['issue.number=1']);
    const [o, r] = String(event.repository.full_name).split('/');
    const issue_number = Number(event.issue.number);

    const issue = await data('github.get_issue', { owner: o, repo: r, issue_number });
    expect(issue).toMatchObject({ number: 1, title: 'Found a bug', state: 'open', labels: [] });
    await data('github.create_issue_comment', { owner: o, repo: r, issue_number, body: 'Looking into it.' });
    const comments = await data('github.list_issue_comments', { owner: o, repo: r, issue_number });
    expect(comments.items.map((c: any) => c.body)).toEqual(['Looking into it.']);

    expect((await data('github.add_labels', { owner: o, repo: r, issue_number, labels: ['bug', 'needs-triage'] })).names).toEqual([
      'bug',
      'needs-triage',
    ]);
    expect((await data('github.add_labels', { owner: o, repo: r, issue_number, labels: ['bug'] })).names).toEqual(['bug', 'needs-triage']);
    expect((await data('github.remove_label', { owner: o, repo: r, issue_number, name: 'needs-triage' })).names).toEqual(['bug']);
    const gone = await tool('github.remove_label', { owner: o, repo: r, issue_number, name: 'needs-triage' });
    expect(gone).toMatchObject({ ok: false, error: { code: 'not_found' } });

    expect((await data('github.get_issue', { owner: o, repo: r, issue_number })).labels).toMatchObject([{ name: 'bug' }]);
    const labelled = await data('github.list_issues', { owner: o, repo: r, labels: ['bug'] });
    expect(labelled.items.map((i: any) => i.number)).toEqual([1]);
    expect((await data('github.list_issues', { owner: o, repo: r, labels: ['needs-triage'] })).items).toEqual([]);
  });

  it('new collaborator: tells the connected account from the newcomer and reads what each may do', async () => {
    const event = await wokenBy('github.new_collaborator', []);
    const [o, r] = String(event.repository.full_name).split('/');
    const newcomer = String(event.member.login);

    const me = await data('github.get_authenticated_user', {});
    expect(me).toMatchObject({ login: demo.githubLogin, type: 'User' });
    expect(newcomer).not.toBe(me.login);
    expect(await data('github.get_collaborator_permission', { owner: o, repo: r, username: me.login })).toMatchObject({
      permission: 'admin',
      user: { login: me.login },
    });
    const theirs = await data('github.get_collaborator_permission', { owner: o, repo: r, username: newcomer });
    expect(theirs).toMatchObject({ permission: 'read', user: { login: newcomer } });
    const welcome = await data('github.create_issue', {
      owner: o,
      repo: r,
      title: `Welcome @${newcomer}`,
      body: `You can ${theirs.permission}.`,
    });
    expect(welcome.title).toBe(`Welcome @${newcomer}`);
  });
});

describe("the sandbox's pull requests across a restart", () => {
  it('keeps the diff, the reviews and the merge of a pull request', async () => {
    const keep = mkdtempSync(join(tmpdir(), 'sandbox-prs-keep-'));
    const start = () =>
      startLocalRuntime({
        env: { DATA_DIR: keep, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
        write: () => {},
        sandbox: true,
      });
    const first = rt;
    try {
      rt = await start();
      await data('github.create_branch', { owner, repo, ref: 'kept', from_branch: 'main' });
      await data('github.create_or_update_file_contents', {
        owner,
        repo,
        path: 'kept.md',
        message: 'Kept',
        content: 'kept\n',
        branch: 'kept',
      });
      const { number: pull_number } = await data('github.create_pull_request', { owner, repo, title: 'Kept', head: 'kept' });
      await data('github.create_pull_request_review', { owner, repo, pull_number, event: 'COMMENT', body: 'Noted.' });
      await data('github.merge_pull_request', { owner, repo, pull_number });
      await rt.close();

      rt = await start();
      expect(await data('github.get_pull_request', { owner, repo, pull_number })).toMatchObject({ merged: true, changed_files: 1 });
      expect((await data('github.get_pull_request_diff', { owner, repo, pull_number })).diff).toContain(
        '+++ b/kept.md\n@@ -0,0 +1,1 @@\n+kept',
      );
      expect((await data('github.get_reviewers', { owner, repo, pull_number })).reviewers).toMatchObject([{ state: 'COMMENTED' }]);
      await rt.close();
    } finally {
      rt = first;
      rmSync(keep, { recursive: true, force: true });
    }
  });
});
