import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollOnce } from '../../shared/polling/poll-once';
import { consumerPass } from '../helpers/consumer-pass';
import { FakeAgentRuntime } from '../helpers/fake-agent-runtime';
import { FakeGitHub, type FakeHook } from '../helpers/fake-github-server';
import { httpApiCaller } from '../helpers/platform-api-caller';
import { platformKey, repository, startRuntime, type TestRuntime } from '../helpers/runtime-support';
import { examplePayload } from '../helpers/signed-delivery';

/**
 * The outside check, through the local runtime in process: the fake code host plays
 * GitHub as it publishes its behaviour (deliveries from @octokit/webhooks-examples, REST
 * answers as its description says), and the agent runtime counts one event per user action
 * and nothing lost.
 */
const token = 'ghp_behavesTestToken0000000000000000000000';
let github: FakeGitHub;
let agent: FakeAgentRuntime;
let rt: TestRuntime;
let hook: FakeHook;
let connectionId: string;
const subs: Record<string, string> = {};

beforeAll(async () => {
  github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  agent = await FakeAgentRuntime.start();
  github.tags.set(repository, [github.tag(repository, 'v0.1.0', 'a'.repeat(40)), github.tag(repository, 'v0.0.1', 'b'.repeat(40))]);
  rt = await startRuntime({ GITHUB_API_URL: github.url, AGENT_RUNTIME_URL: agent.url }, false);
  const api = httpApiCaller(rt.url, platformKey);
  const connection = await api('POST', '/connections', { provider: 'github', token });
  expect(connection.status).toBe(201);
  connectionId = connection.body.id;
  for (const trigger of [
    'new_pull_request',
    'updated_pull_request',
    'new_review_request',
    'new_tag',
    'new_pull_request_review',
    'new_comment',
  ]) {
    const sub = await api('POST', '/subscriptions', { connectionId, trigger: `github.${trigger}`, agentId: 'counting-agent', repository });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    subs[trigger] = sub.body.id;
  }
  const [made] = github.hooksOf(`repos/${repository}`);
  hook = made!;
});

afterAll(async () => {
  await rt?.dispose();
  await agent?.close();
  await github?.close();
});

let guid = 0;
async function deliver(event: string, payload: Record<string, unknown>): Promise<number> {
  return (await github.deliver(hook, event, JSON.stringify(payload), `guid-${++guid}`)).status;
}

/** Consumer passes until the queue is empty, as the runtime's loop would run them. */
async function drain(): Promise<void> {
  for (let i = 0; i < 50; i++) if ((await consumerPass(rt.ctx, rt.queues.queue)).received === 0) return;
  throw new Error('the queue did not drain');
}

function received(trigger: string): Array<Record<string, any>> {
  return agent.events().filter((e) => e.trigger === `github.${trigger}`) as Array<Record<string, any>>;
}

/** The published example of `event.action`, its subject changed `seconds` after it was created (as the code host stamps a later action). */
function actedAfterOpening(action: string, seconds: number): Record<string, unknown> {
  const p = examplePayload('pull_request', action);
  const pr = p.pull_request as Record<string, unknown>;
  pr.updated_at = new Date(Date.parse(String(pr.created_at)) + seconds * 1000).toISOString().replace('.000Z', 'Z');
  return p;
}

describe('GitHub as it behaves, counted at the agent runtime', () => {
  it('a pull request made by `gh pr create -l -a -r` (create, then update, then request reviews) is one new_pull_request, one review request, no update', async () => {
    const before = agent.events().length;
    // createPullRequest: `opened` with no labels, assignees or reviewers (the first published example).
    expect(await deliver('pull_request', examplePayload('pull_request', 'opened'))).toBe(202);
    // updatePullRequest: labels and assignees, 2 s later (the published `labeled` example is +2 s).
    expect(await deliver('pull_request', examplePayload('pull_request', 'labeled'))).toBe(202);
    expect(await deliver('pull_request', actedAfterOpening('assigned', 2))).toBe(202);
    // requestReviews, 3 s after (Enterprise Server's published example).
    expect(await deliver('pull_request', actedAfterOpening('review_requested', 3))).toBe(202);
    await drain();
    expect(received('new_pull_request')).toHaveLength(1);
    expect(received('updated_pull_request')).toHaveLength(0);
    expect(received('new_review_request')).toHaveLength(1);
    expect(agent.events().length - before).toBe(2);
  });

  it('a label added a minute later is one update', async () => {
    expect(await deliver('pull_request', actedAfterOpening('labeled', 60))).toBe(202);
    await drain();
    expect(received('updated_pull_request')).toHaveLength(1);
  });

  it('a 30-tag push (no delivery at all) is announced by the tag poll, 30 events once each; the tags there at subscription time are not', async () => {
    const pushed = Array.from({ length: 30 }, (_, i) =>
      github.tag(repository, `release-${String(i + 1).padStart(2, '0')}`, `${i}`.padStart(40, 'c')),
    );
    github.tags.set(repository, [...pushed, ...(github.tags.get(repository) ?? [])]);
    const report = await pollOnce(rt.ctx);
    expect(report.failed).toBe(0);
    await drain();
    const refs = received('new_tag').map((e) => e.event.ref);
    expect(refs.sort()).toEqual(pushed.map((t) => t.name).sort());
    expect(received('new_tag').every((e) => e.subscriptionId === subs.new_tag)).toBe(true);
    // The next round finds every page unchanged (304s, free of rate limit) and announces nothing.
    expect(await pollOnce(rt.ctx)).toMatchObject({ announced: 0, failed: 0 });
    await drain();
    expect(received('new_tag')).toHaveLength(30);
  });

  it('a tag announced by its create delivery is not announced again by the poll, and a polled one not again by a late create', async () => {
    const create = (ref: string) => ({ ...examplePayload('create'), ref, ref_type: 'tag' });
    github.tags.set(repository, [github.tag(repository, 'v1.0.0', 'd'.repeat(40)), ...(github.tags.get(repository) ?? [])]);
    expect(await deliver('create', create('v1.0.0'))).toBe(202);
    await drain();
    await pollOnce(rt.ctx);
    await drain();
    expect(received('new_tag').filter((e) => e.event.ref === 'v1.0.0')).toHaveLength(1);

    github.tags.set(repository, [github.tag(repository, 'v1.0.1', 'e'.repeat(40)), ...(github.tags.get(repository) ?? [])]);
    await pollOnce(rt.ctx);
    await drain();
    expect(await deliver('create', create('v1.0.1'))).toBe(202);
    await drain();
    expect(received('new_tag').filter((e) => e.event.ref === 'v1.0.1')).toHaveLength(1);
    expect(received('new_tag')).toHaveLength(32);
  });

  it("deleting the new_tag subscription removes its tag watch: the poll no longer reads the repository's tags for it", async () => {
    const api = httpApiCaller(rt.url, platformKey);
    expect((await api('DELETE', `/subscriptions/${subs.new_tag}`)).status).toBe(200);
    github.tags.set(repository, [github.tag(repository, 'v2.0.0', 'f'.repeat(40)), ...(github.tags.get(repository) ?? [])]);
    const reads = github.requests.filter((r) => r.path.endsWith('/tags')).length;
    expect(await pollOnce(rt.ctx)).toMatchObject({ subscriptions: 0, announced: 0 });
    expect(github.requests.filter((r) => r.path.endsWith('/tags')).length).toBe(reads);
  });

  it('a review of inline comments only ("Submit review -> Comment", empty summary) is a review; the wrapper of a standalone comment is not', async () => {
    const submitted = (id: number, at: string) => {
      const p = examplePayload('pull_request_review', 'submitted');
      p.review = { ...(p.review as Record<string, unknown>), id, submitted_at: at, body: null, state: 'commented' };
      return p;
    };
    const comment = (id: number, reviewId: number, createdAt: string) => {
      const p = examplePayload('pull_request_review_comment', 'created');
      p.comment = {
        ...(p.comment as Record<string, unknown>),
        id,
        pull_request_review_id: reviewId,
        created_at: createdAt,
        updated_at: createdAt,
      };
      return p;
    };
    // A review: two inline comments drafted, then submitted with an empty summary.
    github.reviewComments.set(`${repository}#2#501`, [
      comment(9001, 501, '2019-05-15T15:30:00Z').comment as Record<string, unknown>,
      comment(9002, 501, '2019-05-15T15:31:00Z').comment as Record<string, unknown>,
    ]);
    expect(await deliver('pull_request_review_comment', comment(9001, 501, '2019-05-15T15:30:00Z'))).toBe(202);
    expect(await deliver('pull_request_review_comment', comment(9002, 501, '2019-05-15T15:31:00Z'))).toBe(202);
    expect(await deliver('pull_request_review', submitted(501, '2019-05-15T15:32:10Z'))).toBe(202);
    // A review of ONE inline comment, drafted a minute before it was submitted.
    github.reviewComments.set(`${repository}#2#502`, [comment(9003, 502, '2019-05-15T15:40:00Z').comment as Record<string, unknown>]);
    expect(await deliver('pull_request_review_comment', comment(9003, 502, '2019-05-15T15:40:00Z'))).toBe(202);
    expect(await deliver('pull_request_review', submitted(502, '2019-05-15T15:41:05Z'))).toBe(202);
    // "Add single comment": the comment and the wrapper the code host makes around it, in the same second (as published: 1 s apart).
    github.reviewComments.set(`${repository}#2#503`, [comment(9004, 503, '2019-05-15T15:50:37Z').comment as Record<string, unknown>]);
    expect(await deliver('pull_request_review_comment', comment(9004, 503, '2019-05-15T15:50:37Z'))).toBe(202);
    expect(await deliver('pull_request_review', submitted(503, '2019-05-15T15:50:38Z'))).toBe(202);
    await drain();
    expect(
      received('new_pull_request_review')
        .map((e) => e.event.review.id)
        .sort(),
    ).toEqual([501, 502]);
    expect(received('new_comment')).toHaveLength(4);
    // One read per comment-only review, with the connection's token.
    expect(github.requests.filter((r) => /\/reviews\/\d+\/comments$/.test(r.path))).toHaveLength(3);
  });
});
