import { describe, expect, it } from 'vitest';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { mapPolledGist, mapPolledRepository, mapPolledWatcher } from '../../shared/providers/github/mapping/map-polled';
import type { MappedEvent } from '../../shared/domain/mapping/types';
import { githubTriggerIds as triggerIds, type TriggerName } from '../../shared/domain/triggers';
import { allExamples, type Example } from '../fixtures/webhooks/examples';
import * as variants from '../fixtures/webhooks/variants';

/**
 * Every documented payload of @octokit/webhooks-examples (all sets) through the mapping:
 * each maps to exactly the triggers written here. Keys not listed map to nothing.
 */
const expected: Record<string, TriggerName[]> = {
  create: ['new_tag'], // every create example is a tag
  fork: ['new_fork'],
  'star.created': ['new_star'], // watch.started (sent for the same star) maps to nothing
  'repository.created': ['new_repository'],
  'member.added': ['new_collaborator'],
  'issues.opened': ['new_issue'],
  'issues.edited': ['updated_issue'],
  'issues.reopened': ['updated_issue'],
  'issues.assigned': [], // updated_issue only when sent later than the opening (see openingActions)
  'issues.unassigned': ['updated_issue'],
  'issues.labeled': ['new_label_on_issue'],
  'issues.unlabeled': ['updated_issue'],
  'pull_request.opened': ['new_pull_request'], // none of the examples is a draft
  'pull_request.ready_for_review': ['new_pull_request', 'updated_pull_request'],
  'pull_request.review_requested': ['new_review_request'],
  'pull_request.assigned': [], // likewise
  'pull_request.unassigned': ['updated_pull_request'],
  'pull_request.closed': ['updated_pull_request'],
  'pull_request.reopened': ['updated_pull_request'],
  'pull_request.converted_to_draft': ['updated_pull_request'],
  'pull_request.labeled': ['updated_pull_request'],
  'pull_request.unlabeled': ['updated_pull_request'],
  'pull_request.locked': ['updated_pull_request'],
  'pull_request.unlocked': ['updated_pull_request'],
  'pull_request.review_request_removed': ['updated_pull_request'],
  'pull_request.synchronize': ['updated_pull_request'],
  // Every example is a body-less `commented` review: announced, and read back after the intake answered (a wrapper of one inline comment is dropped then).
  'pull_request_review.submitted': ['new_pull_request_review'],
  'issue_comment.created': ['new_comment'],
  'pull_request_review_comment.created': ['new_comment'],
  'workflow_run.completed': ['workflow_run_completed'],
  'workflow_job.completed': ['workflow_job_completed'],
  'projects_v2_item.edited': ['project_item_status_changed'], // its field_value is a single_select with no name
  'project_card.created': ['new_card_in_column'],
  'project_card.moved': ['new_card_in_column'], // moved from column 9999467 into 5368157
  'release.published': ['new_release'],
  'discussion.created': ['new_discussion'],
  'discussion_comment.created': ['new_discussion_comment'],
};

/** `push` examples differ one by one: listed by set and index (ref, created, deleted in the comment). */
const pushExpected: Record<string, TriggerName[]> = {
  'api.github.com#0': ['new_push'], // refs/tags/simple-tag created: new_tag comes from `create`
  'api.github.com#1': [], // tag deleted
  'api.github.com#2': [],
  'api.github.com#3': [],
  'api.github.com#4': ['new_push', 'new_commit'], // refs/heads/master, one distinct commit
  'api.github.com#5': ['new_push', 'new_commit'],
  'api.github.com#6': [],
  'ghes-31#0': [], // tag deleted
  'ghes-32#0': [],
  'ghes-33#0': ['new_push'],
  'ghes-34#0': ['new_push'],
  'ghes-34#1': ['new_push'],
  'ghes-35#0': ['new_push'],
  'ghes-35#1': ['new_push'],
};

/**
 * labeled / assigned / review_requested sent right after `opened` (the subject not changed
 * since it was created, within the second) are part of the opening: no updated_* for them.
 * For pull requests, so are those the opener sent within 10 s (the published `labeled`
 * example is 2 s after the opening, by the opener): they fire new_pull_request again under
 * the opening's dedupeKey, which dispatch lets through once per subscription.
 */
const openingActions: Record<string, TriggerName> = {
  'issues.labeled': 'updated_issue',
  'issues.assigned': 'updated_issue',
  'pull_request.labeled': 'updated_pull_request',
  'pull_request.assigned': 'updated_pull_request',
  'pull_request.review_requested': 'updated_pull_request',
};

function atOpening(e: Example): boolean {
  const s = (e.payload.issue ?? e.payload.pull_request) as { created_at: string; updated_at: string; user: { id: number } };
  const age = Date.parse(s.updated_at) - Date.parse(s.created_at);
  if (age <= 1000) return true;
  const byOpener = (e.payload.sender as { id: number }).id === s.user.id;
  return e.event === 'pull_request' && byOpener && age <= 10_000;
}

function expectedFor(e: Example): TriggerName[] {
  const opening = openingActions[e.key];
  if (opening) {
    const rest = (expected[e.key] ?? []).filter((t) => t !== opening);
    if (!atOpening(e)) return [...rest, opening];
    const draft = (e.payload.pull_request as { draft?: boolean } | undefined)?.draft === true;
    return e.event === 'pull_request' && !draft ? [...rest, 'new_pull_request'] : rest;
  }
  if (e.event === 'push') {
    const listed = pushExpected[`${e.set}#${e.index}`];
    if (!listed) throw new Error(`push example ${e.set}#${e.index} has no expectation`);
    return listed;
  }
  return expected[e.key] ?? [];
}

const names = (mapped: MappedEvent[]) => mapped.map((m) => m.trigger.replace(/^github\./, '')).sort();
const map = (e: Example) => mapDelivery({ event: e.event, payload: e.payload, accountLogin: 'octocat' });

describe('mapping of every documented webhook example', () => {
  const examples = allExamples();

  it('reads the examples of every set', () => {
    expect(examples.length).toBeGreaterThan(600);
    expect(new Set(examples.map((e) => e.set)).size).toBe(6);
  });

  it.each(examples.map((e) => [`${e.set} ${e.key} #${e.index}`, e] as const))('%s maps to exactly the expected triggers', (_, e) => {
    expect(names(map(e))).toEqual([...expectedFor(e)].sort());
  });

  it('has no expectation for an event/action the examples do not contain', () => {
    const keys = new Set(examples.map((e) => e.key));
    expect(Object.keys(expected).filter((k) => !keys.has(k))).toEqual([]);
    const pushes = new Set(examples.filter((e) => e.event === 'push').map((e) => `${e.set}#${e.index}`));
    expect(Object.keys(pushExpected).filter((k) => !pushes.has(k))).toEqual([]);
  });

  it('gives every mapped event the repository and sender, compact (no URL templates of the full payload)', () => {
    for (const e of examples) {
      for (const m of map(e)) {
        const event = m.event as { repository?: { full_name?: string }; organization?: { login?: string }; sender?: { login?: string } };
        expect(event.repository?.full_name ?? event.organization?.login, `${e.set} ${e.key}`).toBeTruthy();
        expect(event.sender?.login, `${e.set} ${e.key}`).toBeTruthy();
        expect(JSON.stringify(m.event)).not.toMatch(/followers_url|"hooks_url"|"git_refs_url"/);
        if (m.facts.repository !== undefined) expect(m.facts.repository).toBe(event.repository?.full_name);
      }
    }
  });
});

describe('every one of the 26 triggers is reached', () => {
  it('by a real example or a documented variant (test/fixtures/webhooks/variants.ts)', () => {
    const reached = new Set<string>();
    for (const e of allExamples()) for (const m of map(e)) reached.add(m.trigger);
    const variantDeliveries: Array<[string, unknown]> = [
      ['create', variants.createBranch()],
      ['pull_request_review', variants.reviewApproved()],
      ['issue_comment', variants.issueCommentMentioning()],
    ];
    for (const [event, payload] of variantDeliveries) {
      for (const m of mapDelivery({ event, payload, accountLogin: variants.mentionedLogin })) reached.add(m.trigger);
    }
    for (const m of [
      mapPolledGist(variants.polledGist()),
      mapPolledRepository(variants.polledRepository()),
      mapPolledWatcher(variants.polledWatcher(), 'octocat/Hello-World'),
    ])
      if (m) reached.add(m.trigger);
    expect([...triggerIds].filter((id) => !reached.has(id))).toEqual([]);
  });

  it('without the variants, only new_branch, new_mention and the polled ones are missing from the real examples', () => {
    const reached = new Set<string>();
    for (const e of allExamples()) for (const m of map(e)) reached.add(m.trigger);
    expect([...triggerIds].filter((id) => !reached.has(id)).sort()).toEqual([
      'github.new_branch',
      'github.new_gist',
      'github.new_mention',
      'github.new_watcher',
    ]);
  });
});
