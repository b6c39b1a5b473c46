import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { demo } from '../../local/sandbox/sandbox';
import { until } from '../helpers/runtime-support';

/**
 * `npm run dev` answers back: a tool step that acts on the simulated code host (an issue, a
 * comment, a pull request, a pushed file, a review) or on the simulated collection service (a
 * client) makes the service send the webhook it would send, signed, to the hooks the product
 * registered and to the App's webhook; the event reaches the inbox with no `npm run trigger`.
 */

const key = 'sandbox-answers-back-platform-key-0123456789abcdef';
const [owner, repo] = demo.repository.split('/') as [string, string];

let rt: LocalRuntime;
let dir: string;
const subscriptions: Record<string, string> = {};

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function step(tool: string, input: Record<string, unknown>, connectionId = rt.sandbox?.demo.github.id): Promise<any> {
  const answer = await call('POST', `/tools/${tool}/invoke`, { connectionId, input });
  expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ ok: true });
  return answer.body.data;
}

/** The inbox's first event of a subscription that `matches`, waited for. */
async function arrived(subscription: string, matches: (event: any) => boolean): Promise<any> {
  let found: any;
  await until(`an event of ${subscription} in the inbox`, async () => {
    const { body } = await call('GET', `/sandbox/inbox?subscriptionId=${subscriptions[subscription]}`);
    found = body.events.find((e: any) => matches(e.body.event));
    return found !== undefined;
  });
  expect(found.signatureValid).toBe(true);
  return found.body.event;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-back-'));
  rt = await startLocalRuntime({
    env: { DATA_DIR: dir, PORT: '0', PLATFORM_API_KEY: key, POLL_INTERVAL_SECONDS: '3600', LOG_LEVEL: 'WARN' },
    write: () => {},
    sandbox: true,
  });
  const demoConnections = rt.sandbox?.demo;
  const subscribe = async (name: string, connectionId: string | undefined, trigger: string, target: Record<string, unknown>) => {
    const made = await call('POST', '/subscriptions', { connectionId, trigger, agentId: 'looping-agent', ...target });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    subscriptions[name] = made.body.id;
  };
  for (const t of ['new_issue', 'new_comment', 'new_pull_request', 'new_push', 'new_pull_request_review'])
    await subscribe(t, demoConnections?.github.id, `github.${t}`, { repository: demo.repository });
  await subscribe('app.new_issue', demoConnections?.githubApp?.id, 'github.new_issue', { repository: demo.repository });
  await subscribe('client_created', demoConnections?.contentsnare.id, 'contentsnare.client_created', {});
}, 60_000);

afterAll(async () => {
  await rt?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run dev: what a step does on the simulated services wakes the subscriptions', () => {
  it('a created issue reaches the inbox as new_issue, through the hook the product registered and through the App webhook', async () => {
    const issue = await step('github.create_issue', { owner, repo, title: 'Woken by the sandbox' });
    const event = await arrived('new_issue', (e) => e.issue?.number === issue.number);
    expect(event.issue.title).toBe('Woken by the sandbox');
    expect(event.repository.full_name).toBe(demo.repository);
    const byApp = await arrived('app.new_issue', (e) => e.issue?.number === issue.number);
    expect(byApp.issue.title).toBe('Woken by the sandbox');
    // The code host lists the delivery on the hook, as it does for one it sent.
    const hooks = (await fetch(`${rt.sandbox?.githubUrl}/repos/${demo.repository}/hooks`, {
      headers: { authorization: `Bearer ${demo.githubToken}` },
    }).then((r) => r.json())) as Array<{ id: number }>;
    const deliveries = (await fetch(`${rt.sandbox?.githubUrl}/repos/${demo.repository}/hooks/${hooks[0]?.id}/deliveries`, {
      headers: { authorization: `Bearer ${demo.githubToken}` },
    }).then((r) => r.json())) as Array<{ event: string; status_code: number }>;
    expect(deliveries).toContainEqual(expect.objectContaining({ event: 'issues', status_code: 202 }));
  });

  it('a comment on an issue reaches the inbox as new_comment', async () => {
    const comment = await step('github.create_issue_comment', { owner, repo, issue_number: 1, body: 'Acting on the event' });
    const event = await arrived('new_comment', (e) => e.comment?.id === comment.id);
    expect(event.comment.body).toBe('Acting on the event');
    expect(event.issue.number).toBe(1);
  });

  it('a file written to a branch, and a commit of several files, reach the inbox as new_push with their commit', async () => {
    const written = await step('github.create_or_update_file_contents', {
      owner,
      repo,
      path: 'notes/woken.md',
      message: 'Write a note',
      content: '# Woken\n',
    });
    const sha = written.commit.sha;
    const event = await arrived('new_push', (e) => e.after === sha);
    expect(event.ref).toBe('refs/heads/main');
    expect(event.commits.map((c: any) => c.message)).toEqual(['Write a note']);

    // Several files in one commit through the Git database: the branch moved by a ref update is a push too.
    const committed = await step('github.commit_files', {
      owner,
      repo,
      message: 'Two notes',
      files: [
        { path: 'notes/a.md', content: 'A' },
        { path: 'notes/b.md', content: 'B' },
      ],
    });
    const again = await arrived('new_push', (e) => e.after === committed.commit.sha);
    expect(again).toMatchObject({ ref: 'refs/heads/main', before: sha, head_commit: { id: committed.commit.sha, message: 'Two notes' } });
  });

  it('an opened pull request and a review submitted on it reach the inbox as new_pull_request and new_pull_request_review', async () => {
    await step('github.create_branch', { owner, repo, ref: 'feature/woken' });
    await step('github.create_or_update_file_contents', {
      owner,
      repo,
      path: 'feature.md',
      message: 'Add a feature',
      content: 'feature\n',
      branch: 'feature/woken',
    });
    const pull = await step('github.create_pull_request', { owner, repo, title: 'A woken change', head: 'feature/woken', base: 'main' });
    const opened = await arrived('new_pull_request', (e) => e.pull_request?.number === pull.number);
    expect(opened.pull_request.title).toBe('A woken change');

    await step('github.create_pull_request_review', { owner, repo, pull_number: pull.number, event: 'COMMENT', body: 'Looks right' });
    const review = await arrived('new_pull_request_review', (e) => e.pull_request?.number === pull.number);
    expect(review.review).toMatchObject({ body: 'Looks right', state: 'commented' });
  });

  it('a client made on the collection service reaches the inbox as client_created', async () => {
    const client = await step(
      'contentsnare.create_client',
      { name: 'Woken Client', email: 'woken@example.com' },
      rt.sandbox?.demo.contentsnare.id,
    );
    const event = await arrived('client_created', (e) => e.client?.id === client.id);
    expect(event.client.email).toBe('woken@example.com');
  });
});

describe('npm run dev: a loop of events and actions cannot run away', () => {
  const github = (path: string, init: RequestInit = {}) =>
    fetch(`${rt.sandbox?.githubUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${demo.githubToken}`, 'content-type': 'application/json' },
    });

  it('the simulated code host sends at most 30 deliveries a minute, holds back the rest and says so', async () => {
    const hooksPath = `/repos/${demo.repository}/hooks`;
    const [productHook] = (await (await github(hooksPath)).json()) as Array<{ id: number }>;
    /** The `issues` deliveries the code host lists for the product's hook. */
    const issuesDelivered = async () =>
      ((await (await github(`${hooksPath}/${productHook?.id}/deliveries?per_page=100`)).json()) as Array<{ event: string }>).filter(
        (d) => d.event === 'issues',
      ).length;
    // Fifteen more hooks on the repository's issues: each issue is then 17 deliveries (theirs, the product's hook, the App's).
    for (let n = 0; n < 15; n++) {
      const config = { url: `${rt.url}/healthz?listener=${n}`, content_type: 'json' };
      const made = await github(hooksPath, { method: 'POST', body: JSON.stringify({ name: 'web', events: ['issues'], config }) });
      expect(made.status).toBe(201);
    }
    const before = await issuesDelivered();
    const said: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    let after = -1;
    try {
      // An agent answering each event with an issue: three issues are 51 deliveries, past the 30 of a minute.
      for (let n = 0; n < 3; n++) await step('github.create_issue', { owner, repo, title: `Loop ${n}` });
      // Until the code host has sent all it will: the count the same three seconds running.
      for (let same = 0; same < 3; ) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const now = await issuesDelivered();
        same = now === after ? same + 1 : 0;
        after = now;
      }
    } finally {
      write.mockRestore();
    }
    // The first issue reaches the product's hook (at most 18 deliveries came before it in the minute); the third never does.
    expect(after - before).toBeGreaterThan(0);
    expect(after - before).toBeLessThan(3);
    expect(said.join('')).toContain('the simulated code host sends at most 30 webhook deliveries a minute; it held one back');
  }, 120_000);
});
