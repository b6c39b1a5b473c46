import { describe, expect, it } from 'vitest';
import type { MappedEvent } from '../../shared/domain/mapping/types';
import type { Subscription } from '../../shared/domain/model';
import { branchMatches, matchesSubscription as matchesIn } from '../../shared/domain/subscription-match';
import { triggerCatalog } from '../../shared/wiring/providers';
import type { TriggerId } from '../../shared/domain/triggers';

const matchesSubscription = (sub: Parameters<typeof matchesIn>[0], mapped: Parameters<typeof matchesIn>[1]) =>
  matchesIn(sub, mapped, triggerCatalog);

type Sub = Pick<Subscription, 'repository' | 'organization' | 'filters' | 'trigger'>;
const sub = (trigger: TriggerId, rest: Partial<Sub> = {}): Sub => ({ trigger, filters: {}, ...rest });
const mapped = (trigger: TriggerId, facts: MappedEvent['facts']): MappedEvent => ({ trigger, dedupeKey: 'delivery', event: {}, facts });

describe('repository and organization (cross-tenant guard)', () => {
  const push = mapped('github.new_push', { repository: 'Acme/Web', organization: 'Acme', branch: 'main' });

  it('matches the named repository, whatever the case', () => {
    expect(matchesSubscription(sub('github.new_push', { repository: 'acme/web' }), push)).toBe(true);
  });

  it('refuses an event naming another repository, or none', () => {
    expect(matchesSubscription(sub('github.new_push', { repository: 'acme/api' }), push)).toBe(false);
    expect(matchesSubscription(sub('github.new_push', { repository: 'acme/web' }), mapped('github.new_push', {}))).toBe(false);
  });

  it('an organization subscription takes its organization only (from facts or the repository owner)', () => {
    expect(matchesSubscription(sub('github.new_push', { organization: 'ACME' }), push)).toBe(true);
    expect(matchesSubscription(sub('github.new_push', { organization: 'other' }), push)).toBe(false);
    expect(matchesSubscription(sub('github.new_push', { organization: 'acme' }), mapped('github.new_push', { repository: 'acme/x' }))).toBe(
      true,
    );
    expect(matchesSubscription(sub('github.new_push', { organization: 'acme' }), mapped('github.new_push', {}))).toBe(false);
  });

  it('another trigger never matches', () => {
    expect(matchesSubscription(sub('github.new_commit', { repository: 'acme/web' }), push)).toBe(false);
  });

  it('an account subscription (no repository, no organization) takes the polled item', () => {
    expect(matchesSubscription(sub('github.new_gist'), mapped('github.new_gist', {}))).toBe(true);
  });
});

describe('branch filter', () => {
  it.each([
    ['main', 'main', true],
    ['main', 'Main', false],
    ['release/*', 'release/1.0', true],
    ['release/*', 'release/1/hotfix', false],
    ['release/**', 'release/1/hotfix', true],
    ['feat*', 'feature', true],
    ['*', 'main', true],
    ['v1.0', 'v1x0', false],
  ] as const)('%s vs %s: %s', (pattern, branch, expected) => {
    expect(branchMatches(pattern, branch)).toBe(expected);
  });

  it('any listed branch matches; a push without a branch (tag) does not', () => {
    const s = sub('github.new_commit', { filters: { branches: ['main', 'release/*'] } });
    expect(matchesSubscription(s, mapped('github.new_commit', { branch: 'release/2' }))).toBe(true);
    expect(matchesSubscription(s, mapped('github.new_commit', { branch: 'dev' }))).toBe(false);
    expect(matchesSubscription(sub('github.new_push', { filters: { branches: ['main'] } }), mapped('github.new_push', {}))).toBe(false);
  });

  it('an empty list filters nothing', () => {
    expect(matchesSubscription(sub('github.new_push', { filters: { branches: [] } }), mapped('github.new_push', { branch: 'x' }))).toBe(
      true,
    );
  });
});

describe('labels, column and project filters', () => {
  it('labels: any of, case-insensitive', () => {
    const s = sub('github.new_label_on_issue', { filters: { labels: ['bug', 'urgent'] } });
    expect(matchesSubscription(s, mapped('github.new_label_on_issue', { labels: ['Bug'] }))).toBe(true);
    expect(matchesSubscription(s, mapped('github.new_label_on_issue', { labels: ['docs'] }))).toBe(false);
    expect(matchesSubscription(s, mapped('github.new_label_on_issue', {}))).toBe(false);
  });

  it('column: by id or by name', () => {
    const byId = sub('github.new_card_in_column', { filters: { column: '5368157' } });
    const byName = sub('github.new_card_in_column', { filters: { column: 'to do' } });
    expect(matchesSubscription(byId, mapped('github.new_card_in_column', { column: { id: '5368157' } }))).toBe(true);
    expect(matchesSubscription(byId, mapped('github.new_card_in_column', { column: { id: '1' } }))).toBe(false);
    expect(matchesSubscription(byName, mapped('github.new_card_in_column', { column: { id: '1', name: 'To Do' } }))).toBe(true);
    expect(matchesSubscription(byName, mapped('github.new_card_in_column', { column: { id: '1' } }))).toBe(false);
  });

  it('project: by node id or by number', () => {
    const facts = { organization: 'acme', project: { nodeId: 'PVT_kwAEAQ', number: 3 } };
    const ev = mapped('github.project_item_status_changed', facts);
    expect(matchesSubscription(sub('github.project_item_status_changed', { filters: { project: 'PVT_kwAEAQ' } }), ev)).toBe(true);
    expect(matchesSubscription(sub('github.project_item_status_changed', { filters: { project: '3' } }), ev)).toBe(true);
    expect(matchesSubscription(sub('github.project_item_status_changed', { filters: { project: '4' } }), ev)).toBe(false);
  });

  it('a filter the trigger does not take is not read', () => {
    const s = sub('github.new_star', { repository: 'a/b', filters: { branches: ['main'] } });
    expect(matchesSubscription(s, mapped('github.new_star', { repository: 'a/b' }))).toBe(true);
  });
});
