import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import type { MatchedRequest, OperationResponder } from './openapi-check';
import type { SimulatedResponse } from '../simulated-http';

type Json = Record<string, unknown>;

/**
 * The code host's documented payloads (`@octokit/webhooks-examples`, api.github.com), one per
 * delivery the simulated code host sends, extracted by test/fixtures/extract-github-webhook-examples.ts.
 * A delivery is its example with the world's records put in, so it carries every field the
 * example has.
 */
const published = z
  .object({ source: z.string(), examples: z.record(z.string(), z.record(z.string(), z.unknown())) })
  .parse(JSON.parse(readFileSync(fileURLToPath(new URL('./github-webhook-examples.json', import.meta.url)), 'utf8')));

function example(key: string): Json {
  const { installation: _i, organization: _o, enterprise: _e, ...payload } = structuredClone(published.examples[key] ?? {});
  return payload;
}

/** One webhook the code host sends: its `X-GitHub-Event`, the repository it is about, the body. */
export interface Announcement {
  event: string;
  /** `owner/name` of the repository. */
  repository: string;
  payload: Json;
}

/** A commit as the world keeps it. */
export interface WorldCommit {
  sha: string;
  message: string;
  date: string;
  parents: string[];
}

/** What the deliveries read of the world: its branches and commits, and its answers (for the records as the REST API shows them). */
export interface AnnouncingWorld {
  branchHeads(owner: string, repo: string): Record<string, string> | undefined;
  commit(owner: string, repo: string, sha: string): WorldCommit | undefined;
  answers: Record<string, OperationResponder>;
}

/** The branches of the repository a write is about, read before it runs: a push is a branch that moved. */
export interface BeforeWrite {
  owner: string;
  repo: string;
  heads: Record<string, string>;
}

const zeroSha = '0000000000000000000000000000000000000000';
/** A push payload lists at most this many commits here (the code host lists up to 2,048). */
const commitsListed = 20;

/** What the REST API answers for a record of the world (a GET through the world's own answers). */
async function read(world: AnnouncingWorld, operationId: string, params: Record<string, string>): Promise<Json | undefined> {
  const answer = world.answers[operationId];
  if (!answer) return undefined;
  const got = await answer({
    method: 'GET',
    url: '/',
    path: '/',
    query: new URLSearchParams(),
    headers: {},
    body: '',
    operationId,
    params,
  });
  return (got.status ?? 200) < 300 && got.body && typeof got.body === 'object' ? (got.body as Json) : undefined;
}

export function beforeWrite(world: AnnouncingWorld, match: MatchedRequest): BeforeWrite | undefined {
  const { owner, repo } = match.params;
  if (owner === undefined || repo === undefined) return undefined;
  return { owner, repo, heads: { ...world.branchHeads(owner, repo) } };
}

/** The record a write answered, as a payload field: the answer's body when it is a success. */
const answered = (answer: SimulatedResponse): Json | undefined =>
  (answer.status ?? 200) < 300 && answer.body && typeof answer.body === 'object' ? (answer.body as Json) : undefined;

/**
 * The webhooks the code host sends for a write that succeeded, as it sends them: an issue
 * opened (`issues.opened`), a comment (`issue_comment.created`), a pull request opened
 * (`pull_request.opened`), a review submitted (`pull_request_review.submitted`; a pending
 * review is not), and for every branch the write moved a `push` (with `create` for a new
 * branch) whatever operation moved it (the contents API, a commit of several files, a ref
 * update, a merge).
 */
export async function announcements(
  world: AnnouncingWorld,
  match: MatchedRequest,
  answer: SimulatedResponse,
  before: BeforeWrite | undefined,
): Promise<Announcement[]> {
  const record = answered(answer);
  if (!record || !before) return [];
  const { owner, repo } = before;
  const repository = await read(world, 'repos/get', { owner, repo });
  if (!repository) return [];
  const fullName = String(repository.full_name);
  const sender = (record.user as Json | undefined) ?? (repository.owner as Json);
  const about = (event: string, key: string, fields: Json): Announcement => ({
    event,
    repository: fullName,
    payload: { ...example(key), ...fields, repository, sender },
  });
  const found: Announcement[] = [];
  const op = match.operationId;
  if (op === 'issues/create') found.push(about('issues', 'issues.opened', { action: 'opened', issue: record }));
  if (op === 'issues/create-comment') {
    const issue = await read(world, 'issues/get', { owner, repo, issue_number: match.params.issue_number ?? '' });
    if (issue) found.push(about('issue_comment', 'issue_comment.created', { action: 'created', issue, comment: record }));
  }
  if (op === 'pulls/create')
    found.push(about('pull_request', 'pull_request.opened', { action: 'opened', number: record.number, pull_request: record }));
  if (op === 'pulls/create-review' && record.state !== 'PENDING') {
    const pull = await read(world, 'pulls/get', { owner, repo, pull_number: match.params.pull_number ?? '' });
    // The webhook names a review's state in lower case (`approved`, `commented`), the REST API in upper.
    const review = { ...record, state: String(record.state).toLowerCase() };
    if (pull)
      found.push(about('pull_request_review', 'pull_request_review.submitted', { action: 'submitted', review, pull_request: pull }));
  }
  found.push(...pushes(world, before, repository));
  return found;
}

/** A `push` for each branch the write moved (and a `create` for each it made), as the code host sends them. */
function pushes(world: AnnouncingWorld, before: BeforeWrite, repository: Json): Announcement[] {
  const { owner, repo } = before;
  const after = world.branchHeads(owner, repo) ?? {};
  const fullName = String(repository.full_name);
  const sender = repository.owner as Json;
  const found: Announcement[] = [];
  for (const [branch, head] of Object.entries(after)) {
    const was = before.heads[branch];
    if (was === head) continue;
    const commits = newCommits(world, before, head, was).map((c) => shapeCommit(c, fullName, String(sender.login)));
    const ref = `refs/heads/${branch}`;
    const shape = example('push');
    found.push({
      event: 'push',
      repository: fullName,
      payload: {
        ...shape,
        ref,
        before: was ?? zeroSha,
        after: head,
        created: was === undefined,
        deleted: false,
        forced: false,
        base_ref: null,
        compare: `https://github.com/${fullName}/compare/${(was ?? zeroSha).slice(0, 12)}...${head.slice(0, 12)}`,
        commits,
        head_commit: commits.at(-1) ?? null,
        repository,
        pusher: { name: String(sender.login), email: `${String(sender.login)}@users.noreply.github.com` },
        sender,
      },
    });
    if (was === undefined)
      found.push({
        event: 'create',
        repository: fullName,
        payload: {
          ...example('create'),
          ref: branch,
          ref_type: 'branch',
          master_branch: repository.default_branch,
          description: repository.description ?? null,
          pusher_type: 'user',
          repository,
          sender,
        },
      });
  }
  return found;
}

/** The commits a branch gained, oldest first: from its new head back along first parents to where it was (at most `commitsListed`). */
function newCommits(world: AnnouncingWorld, before: BeforeWrite, head: string, was: string | undefined): WorldCommit[] {
  const known = new Set(Object.values(before.heads));
  const list: WorldCommit[] = [];
  let at: string | undefined = head;
  while (at && at !== was && list.length < commitsListed) {
    const c = world.commit(before.owner, before.repo, at);
    // A new branch lists only what no branch had before.
    if (!c || (was === undefined && known.has(c.sha))) break;
    list.push(c);
    at = c.parents[0];
  }
  return list.reverse();
}

function shapeCommit(c: WorldCommit, fullName: string, login: string): Json {
  const person = { name: login, email: `${login}@users.noreply.github.com`, username: login };
  return {
    ...((example('push').head_commit as Json | undefined) ?? {}),
    id: c.sha,
    tree_id: c.sha.split('').reverse().join(''),
    distinct: true,
    message: c.message,
    timestamp: c.date,
    url: `https://github.com/${fullName}/commit/${c.sha}`,
    author: person,
    committer: person,
    added: [],
    removed: [],
    modified: [],
  };
}

/** A new delivery id, as the code host makes one per delivery (`X-GitHub-Delivery`). */
export const deliveryGuid = (): string => randomUUID();
