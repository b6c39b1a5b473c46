import { describe, expect, it } from 'vitest';
import { mentions } from '../../shared/providers/github/mapping/find-mention';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { example } from '../fixtures/webhooks/examples';
import * as v from '../fixtures/webhooks/variants';

const mentionsOf = (event: string, payload: unknown, accountLogin = 'bob') =>
  mapDelivery({ event, payload, accountLogin }).filter((m) => m.trigger === 'github.new_mention');

describe('@-mention word boundaries', () => {
  it.each([
    ['@bob', true],
    ['hey @bob, look', true],
    ['(@bob)', true],
    ['thanks @bob.', true],
    ['thanks @bob...', true],
    ['@Bob please', true],
    ['cc:@bob', true],
    ['line one\n@bob', true],
    ['@bobby', false],
    ['@bob-smith', false],
    ['@bob_x', false],
    ['bob@bob.com', false],
    ['mail @bob.com', false],
    ['@bob/team', false],
    ['bob', false],
    ['`@bob`', false],
    ['```\n@bob\n```', false],
    ['@alice', false],
  ] as const)('%j mentions bob: %s', (body, expected) => {
    expect(mentions(body, 'bob')).toBe(expected);
  });

  it('escapes the login (no regular-expression injection)', () => {
    expect(mentions('@a.b', 'a.b')).toBe(true);
    expect(mentions('@axb', 'a.b')).toBe(false);
  });
});

describe('new_mention from deliveries', () => {
  it('a new comment mentioning the account fires new_mention beside new_comment', () => {
    const mapped = mapDelivery({ event: 'issue_comment', payload: v.issueCommentMentioning('ping @octocat'), accountLogin: 'octocat' });
    expect(mapped.map((m) => m.trigger).sort()).toEqual(['github.new_comment', 'github.new_mention']);
    const mention = mapped.find((m) => m.trigger === 'github.new_mention');
    expect(mention?.event).toMatchObject({
      mentioned: { login: 'octocat' },
      comment: { body: 'ping @octocat' },
      issue: { number: expect.any(Number) },
    });
    expect(mention?.facts.repository).toBe('Codertocat/Hello-World');
  });

  it('no mention for a longer login, an e-mail address, or another account', () => {
    expect(mentionsOf('issue_comment', v.issueCommentMentioning('@bobby and bob@bob.com'))).toEqual([]);
  });

  it('an edit that adds the mention fires; an edit that keeps it does not', () => {
    expect(mentionsOf('issue_comment', v.issueCommentEdited('now @bob', 'before'))).toHaveLength(1);
    expect(mentionsOf('issue_comment', v.issueCommentEdited('still @bob!', 'was @bob'))).toEqual([]);
  });

  it('an edit that does not touch the body (no changes.body) fires nothing', () => {
    const p = example('issue_comment.edited');
    (p.comment as Record<string, unknown>).body = '@bob';
    p.changes = {};
    expect(mentionsOf('issue_comment', p)).toEqual([]);
  });

  it('the account mentioning itself is not a mention', () => {
    expect(mentionsOf('issue_comment', v.issueCommentMentioning('note to self @codertocat'), 'Codertocat')).toEqual([]);
  });

  it('bodies of issues, pull requests, reviews, review comments, commit comments, discussions and their comments are read', () => {
    const cases: Array<[string, string, (p: Record<string, unknown>) => void]> = [
      ['issues', 'issues.opened', (p) => ((p.issue as Record<string, unknown>).body = 'cc @bob')],
      ['pull_request', 'pull_request.opened', (p) => ((p.pull_request as Record<string, unknown>).body = 'cc @bob')],
      ['pull_request_review', 'pull_request_review.submitted', (p) => ((p.review as Record<string, unknown>).body = 'cc @bob')],
      [
        'pull_request_review_comment',
        'pull_request_review_comment.created',
        (p) => ((p.comment as Record<string, unknown>).body = 'cc @bob'),
      ],
      ['commit_comment', 'commit_comment.created', (p) => ((p.comment as Record<string, unknown>).body = 'cc @bob')],
      ['discussion', 'discussion.created', (p) => ((p.discussion as Record<string, unknown>).body = 'cc @bob')],
      ['discussion_comment', 'discussion_comment.created', (p) => ((p.comment as Record<string, unknown>).body = 'cc @bob')],
    ];
    for (const [event, key, change] of cases) {
      const p = example(key);
      change(p);
      expect(mentionsOf(event, p), key).toHaveLength(1);
    }
  });

  it('a title mentioning the account is not a mention (the code host does not notify titles)', () => {
    const p = example('issues.opened');
    (p.issue as Record<string, unknown>).title = 'for @bob';
    (p.issue as Record<string, unknown>).body = 'nothing here';
    expect(mentionsOf('issues', p)).toEqual([]);
  });
});
