/**
 * Regenerates the example payloads of `npm run trigger` (examples/<trigger>.json beside this file)
 * from the code host's documented payloads in @octokit/webhooks-examples: one real example
 * per trigger, trimmed to what the mapping and an agent read (nested users and
 * repositories cut to their identity, API-only `*_url` links dropped).
 * Run: `npx tsx shared/providers/github/triggers/generate-examples.ts` (test/integration/trigger-cli.test.ts checks
 * that each file still maps to its trigger).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mapDelivery } from '../mapping/map-delivery';
import { triggerNames, type TriggerName } from '../../../domain/triggers';

type Json = Record<string, unknown>;
const root = dirname(createRequire(import.meta.url).resolve('@octokit/webhooks-examples/package.json'));
const defs = JSON.parse(readFileSync(join(root, 'api.github.com', 'index.json'), 'utf8')) as Array<{ name: string; examples: Json[] }>;

function find(event: string, action?: string, nth = 0): Json {
  const list = defs.find((d) => d.name === event)?.examples.filter((e) => action === undefined || e.action === action) ?? [];
  const found = list[nth];
  if (!found) throw new Error(`no example ${event}.${action} #${nth}`);
  return structuredClone(found);
}

const sources: Record<Exclude<TriggerName, 'new_gist' | 'new_watcher'>, { event: string; payload: () => Json; note?: string }> = {
  new_repository: { event: 'repository', payload: () => find('repository', 'created') },
  new_fork: { event: 'fork', payload: () => find('fork') },
  new_star: { event: 'star', payload: () => find('star', 'created') },
  new_tag: { event: 'create', payload: () => find('create') },
  new_issue: { event: 'issues', payload: () => find('issues', 'opened') },
  updated_issue: { event: 'issues', payload: () => find('issues', 'edited') },
  new_pull_request: { event: 'pull_request', payload: () => find('pull_request', 'opened') },
  updated_pull_request: { event: 'pull_request', payload: () => find('pull_request', 'synchronize') },
  new_comment: { event: 'issue_comment', payload: () => find('issue_comment', 'created') },
  new_label_on_issue: { event: 'issues', payload: () => find('issues', 'labeled') },
  new_review_request: { event: 'pull_request', payload: () => find('pull_request', 'review_requested') },
  new_pull_request_review: {
    event: 'pull_request_review',
    // Every submitted example is the body-less `commented` review wrapping an inline comment (not a review): changed state and body.
    payload: () => {
      const p = find('pull_request_review', 'submitted');
      p.review = { ...(p.review as Json), state: 'approved', body: 'Looks good to me.' };
      return p;
    },
    note: 'from the `pull_request_review.submitted` example, changed to an approval with a body (review.state, review.body)',
  },
  new_commit: {
    event: 'push',
    payload: () => find('push', undefined, 4),
    note: '@octokit/webhooks-examples, api.github.com, the fifth `push` example (one commit to a branch), trimmed',
  },
  new_push: {
    event: 'push',
    payload: () => find('push', undefined, 4),
    note: '@octokit/webhooks-examples, api.github.com, the fifth `push` example (one commit to a branch), trimmed',
  },
  new_branch: {
    event: 'create',
    // The examples only create tags: changed ref_type and ref.
    payload: () => ({ ...find('create'), ref_type: 'branch', ref: 'feature/login' }),
    note: 'from the `create` example, changed to a branch (ref_type, ref)',
  },
  workflow_run_completed: { event: 'workflow_run', payload: () => find('workflow_run', 'completed') },
  workflow_job_completed: { event: 'workflow_job', payload: () => find('workflow_job', 'completed') },
  new_collaborator: { event: 'member', payload: () => find('member', 'added') },
  new_mention: {
    event: 'issue_comment',
    payload: () => {
      const p = find('issue_comment', 'created');
      (p.comment as Json).body = 'Could you have a look, @{accountLogin}?';
      return p;
    },
    note: 'from the `issue_comment.created` example; its body mentions the connected account (`{accountLogin}` is filled in when sent)',
  },
  project_item_status_changed: { event: 'projects_v2_item', payload: () => find('projects_v2_item', 'edited') },
  new_card_in_column: { event: 'project_card', payload: () => find('project_card', 'created') },
  new_release: { event: 'release', payload: () => find('release', 'published') },
  new_discussion: { event: 'discussion', payload: () => find('discussion', 'created') },
  new_discussion_comment: { event: 'discussion_comment', payload: () => find('discussion_comment', 'created') },
};

const userKeys = ['login', 'id', 'node_id', 'type', 'html_url'];
const repoKeys = [
  'id',
  'node_id',
  'name',
  'full_name',
  'private',
  'owner',
  'html_url',
  'description',
  'fork',
  'default_branch',
  'visibility',
  'created_at',
  'updated_at',
  'pushed_at',
];

function pick(o: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

/** Users to their identity, repositories to theirs, API links out; recursively. */
function trim(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => trim(v, key));
  if (!value || typeof value !== 'object') return value;
  let o = value as Json;
  if (typeof o.login === 'string' && 'avatar_url' in o) return pick(o, userKeys);
  if (typeof o.full_name === 'string' && 'owner' in o) o = pick(o, repoKeys);
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'installation' || k === 'enterprise' || k === '_links' || k === 'performed_via_github_app' || k === 'reactions') continue;
    if (k.endsWith('_url') && k !== 'html_url' && k !== 'column_url' && k !== 'project_url') continue;
    if (k === 'url' && key !== '') continue;
    out[k] = trim(v, k);
  }
  return out;
}

const here = dirname(fileURLToPath(import.meta.url));
for (const name of triggerNames) {
  // Polled (no webhook): their files hold a REST item and are written by hand.
  if (name === 'new_gist' || name === 'new_watcher') continue;
  const source = sources[name];
  const payload = trim(source.payload()) as Json;
  const mapped = mapDelivery({
    event: source.event,
    payload: JSON.parse(JSON.stringify(payload).replaceAll('{accountLogin}', 'octocat')),
    accountLogin: 'octocat',
  });
  if (!mapped.some((m) => m.trigger === `github.${name}`)) throw new Error(`${name}: the trimmed example no longer maps to its trigger`);
  const doc = {
    trigger: `github.${name}`,
    event: source.event,
    source:
      source.note ??
      `@octokit/webhooks-examples, api.github.com, first \`${source.event}${payload.action ? `.${String(payload.action)}` : ''}\` example, trimmed`,
    payload,
  };
  writeFileSync(join(here, 'examples', `${name}.json`), `${JSON.stringify(doc, null, 2)}\n`);
}
process.stdout.write('examples written\n');
