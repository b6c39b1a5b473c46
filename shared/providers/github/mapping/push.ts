import * as z from 'zod';
import type { MappedEvent } from '../../../domain/mapping/types';
import { baseEvent, baseFacts, compact, occurrence, parse, type Mapper, type MapperTable } from './mapper';
import { envelopeSchema } from './schemas';
import { tagKey } from './map-polled';
import { followUpMember, pushPayloadCommitLimit, type PushCommitsFollowUp } from './follow-ups';

/**
 * Push, commit, tag and branch family (`push` and `create` deliveries).
 *
 * - new_tag: from `create` (ref_type tag) only. The code host sends both `create` and a
 *   `push` (created:true) for a new tag, and NEITHER when more than three tags are pushed at
 *   once, so reading `push` too would add duplicates and no coverage; the tags a webhook never
 *   announces are found by polling the repository's tags (shared/providers/github/polling/poll-tags.ts). Keyed
 *   by the name (`tag:<name>`), as the poll's are, so a tag seen both ways is announced once
 *   per subscription (dispatch remembers an event id 30 days: a tag deleted and created
 *   again under the same name within them is not announced again).
 * - new_branch: from `create` (ref_type branch) only, one per delivery, likewise.
 *   Branches have no three-at-once limit.
 * - new_push: one per push to a branch or tag, multi-commit pushes included; not for ref
 *   deletions (`deleted: true`), which carry no commit and push nothing.
 * - new_commit: one per commit in a push to a branch (refs/heads/*), dedupeKey
 *   `commit:<sha>` so a commit reaching a second branch is not announced again. Commits the
 *   code host marks `distinct: false` were already in the repository: skipped. Tag pushes
 *   and deletions carry no new commit. A payload carries at most 2,048 commits: a push cut
 *   there adds one follow-up occurrence (never sent to the agent runtime) from which the
 *   commits beyond it are read through the compare API after the intake answered
 *   (follow-ups.ts). Those are announced without the `distinct` check (the compare does not
 *   say) and without their file lists (`added`/`removed`/`modified`).
 */

const person = z.object({ name: z.string().nullish(), email: z.string().nullish(), username: z.string().nullish() });

const commitSchema = z.object({
  id: z.string(),
  tree_id: z.string().nullish(),
  distinct: z.boolean().nullish(),
  message: z.string().nullish(),
  timestamp: z.string().nullish(),
  url: z.string().nullish(),
  author: person.nullish(),
  committer: person.nullish(),
  added: z.array(z.string()).nullish(),
  removed: z.array(z.string()).nullish(),
  modified: z.array(z.string()).nullish(),
});

const pushPayload = envelopeSchema.extend({
  ref: z.string(),
  before: z.string().nullish(),
  after: z.string().nullish(),
  created: z.boolean().nullish(),
  deleted: z.boolean().nullish(),
  forced: z.boolean().nullish(),
  base_ref: z.string().nullish(),
  compare: z.string().nullish(),
  pusher: z.object({ name: z.string().nullish(), email: z.string().nullish() }).nullish(),
  commits: z.array(commitSchema).nullish(),
  head_commit: commitSchema.nullish(),
});
type PushPayload = z.output<typeof pushPayload>;

const createPayload = envelopeSchema.extend({
  ref: z.string(),
  ref_type: z.enum(['tag', 'branch']),
  master_branch: z.string().nullish(),
  description: z.string().nullish(),
  pusher_type: z.string().nullish(),
});

const heads = 'refs/heads/';

const fromCreate: Mapper = (payload) => {
  const p = parse(createPayload, payload);
  if (!p) return [];
  const extra = { master_branch: p.master_branch, pusher_type: p.pusher_type, description: p.description };
  if (p.ref_type === 'tag')
    return [occurrence('new_tag', compact({ ...baseEvent(p), ref: p.ref, ref_type: 'tag', ...extra }), baseFacts(p), tagKey(p.ref))];
  const event = compact({ ...baseEvent(p), ref: p.ref, ref_type: 'branch', ...extra });
  return [occurrence('new_branch', event, { ...baseFacts(p), branch: p.ref })];
};

function pushEvent(p: PushPayload): Record<string, unknown> {
  return compact({
    ...baseEvent(p),
    ref: p.ref,
    before: p.before,
    after: p.after,
    created: p.created,
    deleted: p.deleted,
    forced: p.forced,
    base_ref: p.base_ref,
    compare: p.compare,
    pusher: p.pusher,
    head_commit: p.head_commit,
    commits: p.commits ?? [],
  });
}

const fromPush: Mapper = (payload) => {
  const p = parse(pushPayload, payload);
  if (!p || p.deleted) return [];
  const out: MappedEvent[] = [];
  const branch = p.ref.startsWith(heads) ? p.ref.slice(heads.length) : undefined;
  out.push(occurrence('new_push', pushEvent(p), compact({ ...baseFacts(p), branch })));
  if (branch !== undefined) {
    for (const commit of p.commits ?? []) {
      if (commit.distinct === false) continue;
      const event = compact({ ...baseEvent(p), ref: p.ref, branch, compare: p.compare, pusher: p.pusher, commit });
      out.push(occurrence('new_commit', event, { ...baseFacts(p), branch }, `commit:${commit.id}`));
    }
    const rest = commitsBeyondPayload(p, branch);
    if (rest) out.push(rest);
  }
  return out;
};

const zeroSha = /^0+$/;

/** The follow-up that reads the commits a push payload could not carry, when it was cut. */
function commitsBeyondPayload(p: PushPayload, branch: string): MappedEvent | undefined {
  const commits = p.commits ?? [];
  if (commits.length < pushPayloadCommitLimit || !p.after || zeroSha.test(p.after)) return undefined;
  // A new branch has no `before`: compare from the default branch, unless it is the default branch itself.
  const base =
    p.before && !zeroSha.test(p.before) ? p.before : p.repository.default_branch !== branch ? p.repository.default_branch : undefined;
  if (!base) return undefined;
  const followUp: PushCommitsFollowUp = {
    kind: 'push_commits',
    repository: p.repository.full_name,
    base,
    head: p.after,
    page: 1,
    inPayload: commits.map((c) => c.id),
    push: compact({ ...baseEvent(p), ref: p.ref, branch, compare: p.compare, pusher: p.pusher }),
  };
  return occurrence('new_commit', { [followUpMember]: followUp }, { ...baseFacts(p), branch }, `commits_beyond_payload:${p.after}`);
}

export const pushMappers: MapperTable = {
  create: [fromCreate],
  push: [fromPush],
};
