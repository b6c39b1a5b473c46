import { describe, expect, it } from 'vitest';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { triggerEventId } from '../../shared/dispatch/fan-out';
import { mapPolledGist, mapPolledRepository, mapPolledTag } from '../../shared/providers/github/mapping/map-polled';
import type { MappedEvent } from '../../shared/domain/mapping/types';
import { reviewNeedsCheck } from '../../shared/providers/github/mapping/follow-ups';
import { example } from '../fixtures/webhooks/examples';
import * as v from '../fixtures/webhooks/variants';

const map = (event: string, payload: unknown, accountLogin = 'octocat') => mapDelivery({ event, payload, accountLogin });
const triggers = (mapped: MappedEvent[]) => mapped.map((m) => m.trigger);
const only = (mapped: MappedEvent[], trigger: string) => mapped.filter((m) => m.trigger === trigger);

describe('watch vs star', () => {
  it("watch/started is the code host's legacy name of a star, sent beside star/created: it fires nothing (a star is announced once)", () => {
    expect(map('watch', example('watch.started'))).toEqual([]);
  });
  it('star/created is new_star, never new_watcher; star/deleted is nothing', () => {
    expect(triggers(map('star', example('star.created')))).toEqual(['github.new_star']);
    expect(map('star', example('star.deleted'))).toEqual([]);
  });
});

describe('tags from create only', () => {
  it('a new tag is announced from create once: the push sent beside it is new_push, not a second new_tag', () => {
    const fromCreate = only(map('create', example('create')), 'github.new_tag');
    expect(fromCreate).toHaveLength(1);
    expect(fromCreate[0]?.event).toMatchObject({ ref: 'simple-tag', ref_type: 'tag', repository: { full_name: 'Codertocat/Hello-World' } });
    expect(triggers(map('push', example('push', 0)))).toEqual(['github.new_push']);
  });

  it('a branch deleted and created again fires again: keyed by the delivery, not the name', () => {
    const [m] = map('create', v.createBranch('feature/login'));
    expect(m?.dedupeKey).toBe('delivery');
    // The event id the agent runtime and dispatch dedupe on: same for a redelivery, new for a new creation.
    expect(triggerEventId('sub_1', m!, 'guid-created-again')).not.toBe(triggerEventId('sub_1', m!, 'guid-first'));
    expect(triggerEventId('sub_1', m!, 'guid-first')).toBe(triggerEventId('sub_1', m!, 'guid-first'));
  });

  it('a tag is keyed by its name, as the tag poll keys it: seen by the webhook and the poll, it is one event id', () => {
    const [m] = map('create', example('create'));
    const polled = mapPolledTag({ name: 'simple-tag', commit: { sha: 'a'.repeat(40) } }, 'Codertocat/Hello-World');
    expect(m?.dedupeKey).toBe('tag:simple-tag');
    expect(triggerEventId('sub_1', m!, 'guid-create')).toBe(triggerEventId('sub_1', polled!, 'poll:sub_1:tag:simple-tag'));
  });

  it('a tag push carries no new_commit, and a deleted tag nothing at all', () => {
    expect(triggers(map('push', v.tagPush('v2')))).not.toContain('github.new_commit');
    expect(map('push', example('push', 1))).toEqual([]);
  });
});

describe('commits and pushes', () => {
  it('a commit pushed to a second branch keeps the same dedupeKey (announced once per repository)', () => {
    const first = only(map('push', example('push', 4)), 'github.new_commit');
    const second = only(map('push', v.commitOnOtherBranch('feature', true)), 'github.new_commit');
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    expect(second[0]?.dedupeKey).toBe(first[0]?.dedupeKey);
    expect(first[0]?.dedupeKey).toBe('commit:6113728f27ae82c7b1a177c8d03f9e96e0adf246');
    expect(second[0]?.facts.branch).toBe('feature');
  });

  it('a commit the code host marks not distinct (already in the repository) is not a new commit; the push still is', () => {
    const mapped = map('push', v.commitOnOtherBranch('feature', false));
    expect(triggers(mapped)).toEqual(['github.new_push']);
  });

  it('a multi-commit push is one new_push and one new_commit per commit', () => {
    const p = example('push', 4);
    const c = (p.commits as Array<Record<string, unknown>>)[0];
    p.commits = [c, { ...c, id: 'a'.repeat(40) }, { ...c, id: 'b'.repeat(40) }];
    const mapped = map('push', p);
    expect(only(mapped, 'github.new_push')).toHaveLength(1);
    expect(only(mapped, 'github.new_commit').map((m) => m.dedupeKey)).toEqual([
      `commit:${String(c?.id)}`,
      `commit:${'a'.repeat(40)}`,
      `commit:${'b'.repeat(40)}`,
    ]);
    expect(only(mapped, 'github.new_push')[0]?.facts.branch).toBe('master');
  });

  it('a branch deletion is no push and no commit', () => {
    const p = { ...example('push', 4), deleted: true, created: false, commits: [], head_commit: null };
    expect(map('push', p)).toEqual([]);
  });

  it('new_branch comes from create with ref_type branch, once per delivery', () => {
    const mapped = map('create', v.createBranch('feature/login'));
    expect(triggers(mapped)).toEqual(['github.new_branch']);
    expect(mapped[0]).toMatchObject({ dedupeKey: 'delivery', facts: { branch: 'feature/login', repository: 'Codertocat/Hello-World' } });
  });
});

describe('pull requests', () => {
  it('a draft opened is updated_pull_request only; new_pull_request comes when it is ready', () => {
    expect(triggers(map('pull_request', v.draftPullRequestOpened()))).toEqual(['github.updated_pull_request']);
    expect(triggers(map('pull_request', example('pull_request.ready_for_review')))).toContain('github.new_pull_request');
  });

  it('facts carry the base branch and labels for filters', () => {
    const [m] = map('pull_request', example('pull_request.opened'));
    expect(m?.facts).toMatchObject({ repository: 'Codertocat/Hello-World', branch: 'master' });
    expect(Array.isArray(m?.facts.labels)).toBe(true);
  });

  it('an issues delivery about a pull request (issue.pull_request set) fires no issue trigger', () => {
    const p = example('issues.labeled');
    (p.issue as Record<string, unknown>).pull_request = { url: 'https://api.github.com/repos/o/r/pulls/1' };
    expect(map('issues', p)).toEqual([]);
  });
});

describe('one user action, one event', () => {
  it('labels and assignees given when an issue is opened are new_issue only; new_label_on_issue still fires', () => {
    expect(triggers(map('issues', example('issues.labeled')))).toEqual(['github.new_label_on_issue']);
    expect(map('issues', example('issues.assigned'))).toEqual([]);
  });

  it('a label or assignee added later is an update', () => {
    expect(triggers(map('issues', v.actedLater('issues.labeled'))).sort()).toEqual(['github.new_label_on_issue', 'github.updated_issue']);
    expect(triggers(map('issues', v.actedLater('issues.assigned')))).toEqual(['github.updated_issue']);
  });

  it('a label applied in the second after creation is still the opening; two seconds later it is not', () => {
    expect(triggers(map('issues', v.actedLater('issues.labeled', 1)))).toEqual(['github.new_label_on_issue']);
    expect(triggers(map('issues', v.actedLater('issues.labeled', 2))).sort()).toEqual([
      'github.new_label_on_issue',
      'github.updated_issue',
    ]);
  });

  it('reviewers, assignees, labels given when a pull request is opened fire no updated_pull_request; new_review_request still fires', () => {
    // The opening again (new_pull_request under the opening's key, one event per subscription): see pull-request-opening.test.ts.
    expect(triggers(map('pull_request', example('pull_request.review_requested'))).sort()).toEqual([
      'github.new_pull_request',
      'github.new_review_request',
    ]);
    expect(triggers(map('pull_request', example('pull_request.assigned')))).toEqual(['github.new_pull_request']);
    expect(triggers(map('pull_request', v.actedLater('pull_request.review_requested'))).sort()).toEqual([
      'github.new_review_request',
      'github.updated_pull_request',
    ]);
    expect(triggers(map('pull_request', v.actedLater('pull_request.assigned')))).toEqual(['github.updated_pull_request']);
  });

  it('a commented review without a summary is announced and marked for a read-back (wrapper or comment-only review); an approval or a commented review with a body needs none', () => {
    const [m] = map('pull_request_review', example('pull_request_review.submitted'));
    expect(m?.trigger).toBe('github.new_pull_request_review');
    expect(reviewNeedsCheck(m?.event.review as Record<string, unknown>)).toBe(true);
    expect(reviewNeedsCheck(map('pull_request_review', v.reviewApproved())[0]?.event.review as Record<string, unknown>)).toBe(false);
    expect(reviewNeedsCheck(map('pull_request_review', v.reviewCommentedWithBody())[0]?.event.review as Record<string, unknown>)).toBe(
      false,
    );
    expect(triggers(map('pull_request_review', v.reviewApproved()))).toEqual(['github.new_pull_request_review']);
    expect(triggers(map('pull_request_review', v.reviewCommentedWithBody()))).toEqual(['github.new_pull_request_review']);
  });
});

describe('collaborators', () => {
  it('the role is changes.role_name (custom roles and maintain/triage included), the legacy permission beside it', () => {
    const [m] = map('member', v.memberAddedWithRole('maintain', 'write'));
    expect(m?.event).toMatchObject({ role: 'maintain', permission: 'write', member: { login: expect.any(String) } });
  });
  it('a payload without changes names no role', () => {
    const [m] = map('member', example('member.added'));
    expect(m?.trigger).toBe('github.new_collaborator');
    expect(m?.event).not.toHaveProperty('role');
  });
});

describe('issues', () => {
  it('new_label_on_issue matches on the applied label, updated_issue on the issue labels', () => {
    const mapped = map('issues', example('issues.labeled'));
    const label = only(mapped, 'github.new_label_on_issue')[0];
    const p = example('issues.labeled');
    expect(label?.facts.labels).toEqual([(p.label as { name: string }).name]);
    expect(label?.event).toMatchObject({ action: 'labeled', label: { name: (p.label as { name: string }).name } });
  });

  it('lock, pin, milestone and transfer are not "title, body, labels, assignees or status" changes', () => {
    for (const key of ['issues.locked', 'issues.pinned', 'issues.milestoned', 'issues.transferred']) {
      expect(map('issues', example(key)), key).toEqual([]);
    }
  });
});

describe('workflow outcomes', () => {
  it.each([
    ['success', 'succeeded'],
    ['failure', 'failed'],
    ['timed_out', 'failed'],
    ['startup_failure', 'failed'],
    ['cancelled', 'cancelled'],
    ['skipped', 'cancelled'],
    [null, 'failed'],
  ] as const)('conclusion %s gives outcome %s beside the conclusion', (conclusion, outcome) => {
    const [m] = map('workflow_run', v.workflowRunConcluded(conclusion));
    expect(m?.trigger).toBe('github.workflow_run_completed');
    expect(m?.event).toMatchObject({ conclusion, outcome });
  });

  it('a job carries its outcome too, and runs that are only requested fire nothing', () => {
    const [job] = map('workflow_job', example('workflow_job.completed', 0));
    expect(job?.event).toMatchObject({ conclusion: 'failure', outcome: 'failed' });
    expect(map('workflow_run', example('workflow_run.requested'))).toEqual([]);
    expect(map('workflow_job', example('workflow_job.in_progress'))).toEqual([]);
  });
});

describe('Projects (v2) status changes only', () => {
  it('the Status field fires, with the project as facts', () => {
    const [m] = map('projects_v2_item', v.projectFieldEdited('Status'));
    expect(m?.trigger).toBe('github.project_item_status_changed');
    expect(m?.facts).toMatchObject({ organization: expect.any(String), project: { nodeId: expect.any(String), number: 3 } });
    expect(m?.event).toMatchObject({ changes: { field_value: { field_name: 'Status', to: { name: 'In Progress' } } } });
  });

  it('another single-select, a text field, or a non-edit action fires nothing', () => {
    expect(map('projects_v2_item', v.projectFieldEdited('Priority'))).toEqual([]);
    expect(map('projects_v2_item', v.projectFieldEdited('Status', 'text'))).toEqual([]);
    expect(map('projects_v2_item', example('projects_v2_item.reordered'))).toEqual([]);
  });
});

describe('classic project cards', () => {
  it('a card created or moved into a column gives the column id as facts; a reorder in place does not fire', () => {
    const [created] = map('project_card', example('project_card.created'));
    expect(created?.facts.column).toEqual({ id: '5368157' });
    const moved = example('project_card.moved');
    delete moved.changes;
    expect(map('project_card', moved)).toEqual([]);
  });
});

describe('releases', () => {
  it('only published fires, so a release is announced once', () => {
    for (const key of ['release.created', 'release.released', 'release.prereleased', 'release.edited']) {
      expect(map('release', example(key)), key).toEqual([]);
    }
  });
});

describe('bodies that do not fit, ping and unknown events', () => {
  it('a body whose X-GitHub-Event header lies maps to nothing, and does not throw', () => {
    expect(map('push', example('issues.opened'))).toEqual([]);
    expect(map('workflow_run', example('pull_request.closed'))).toEqual([]);
    expect(map('issues', example('push', 4))).toEqual([]);
    expect(map('create', example('star.created'))).toEqual([]);
    expect(map('star', { ...example('issues.opened'), action: 'created' })).toEqual([]);
  });

  it('non-object bodies map to nothing', () => {
    for (const body of [null, 'x', 42, [], {}]) expect(map('push', body)).toEqual([]);
  });

  it('ping, unknown events and unknown actions map to nothing', () => {
    expect(map('ping', example('ping'))).toEqual([]);
    expect(map('gollum', example('gollum'))).toEqual([]);
    expect(map('issues', { ...example('issues.opened'), action: 'exploded' })).toEqual([]);
    expect(map('no_such_event', example('issues.opened'))).toEqual([]);
  });
});

describe('polled items', () => {
  it('a polled gist becomes new_gist keyed by its id', () => {
    const m = mapPolledGist(v.polledGist());
    expect(m).toMatchObject({
      trigger: 'github.new_gist',
      dedupeKey: 'gist:aa5a315d61ae9438b18d',
      event: { gist: { id: 'aa5a315d61ae9438b18d' } },
    });
  });

  it('a polled repository has the same shape and key as a repository.created delivery', () => {
    const m = mapPolledRepository(v.polledRepository());
    expect(m).toMatchObject({
      trigger: 'github.new_repository',
      dedupeKey: 'repository:1296269',
      facts: { repository: 'octocat/Hello-World' },
      event: { action: 'created', repository: { full_name: 'octocat/Hello-World' } },
    });
    const [hook] = map('repository', example('repository.created'));
    expect(hook?.dedupeKey).toMatch(/^repository:\d+$/);
    expect(Object.keys(hook?.event ?? {})).toEqual(expect.arrayContaining(['action', 'repository']));
  });

  it('an item of the wrong shape maps to undefined', () => {
    expect(mapPolledGist({ nope: true })).toBeUndefined();
    expect(mapPolledRepository(null)).toBeUndefined();
  });
});
