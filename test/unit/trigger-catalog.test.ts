import { describe, expect, it } from 'vitest';
import type { SubscriptionTarget } from '../../shared/domain/model';
import { outcomeOf } from '../../shared/domain/outcome';
import { triggerCatalog, webhookEventsFor } from '../../shared/domain/trigger-catalog';
import { triggerIds } from '../../shared/domain/triggers';

const repo: SubscriptionTarget = { kind: 'repository', repository: 'o/r' };
const org: SubscriptionTarget = { kind: 'organization', organization: 'o' };
const account: SubscriptionTarget = { kind: 'account' };

describe('trigger catalog', () => {
  it('describes each of the 26 triggers with a title and a description', () => {
    expect(Object.keys(triggerCatalog).sort()).toEqual([...triggerIds].sort());
    for (const id of triggerIds) {
      expect(triggerCatalog[id].id).toBe(id);
      expect(triggerCatalog[id].title.length).toBeGreaterThan(3);
      expect(triggerCatalog[id].description.length).toBeGreaterThan(10);
    }
  });

  it('star is the star event and watcher the watch event', () => {
    expect(triggerCatalog['github.new_star'].source(repo)).toEqual({ kind: 'webhook', scope: 'either', events: ['star'] });
    expect(triggerCatalog['github.new_watcher'].source(repo)).toEqual({ kind: 'webhook', scope: 'either', events: ['watch'] });
  });

  it('tags need both create and push', () => {
    expect(webhookEventsFor(['github.new_tag'])).toEqual(['create', 'push']);
  });

  it('Projects (v2) status changes need an organization hook', () => {
    expect(triggerCatalog['github.project_item_status_changed'].source(org)).toEqual({ kind: 'webhook', scope: 'organization', events: ['projects_v2_item'] });
    expect(triggerCatalog['github.project_item_status_changed'].source(repo)).toBeUndefined();
  });

  it('new repositories: organization hook, or polling for a user account; gists: polling for the account only', () => {
    expect(triggerCatalog['github.new_repository'].source(org)).toMatchObject({ kind: 'webhook', events: ['repository'] });
    expect(triggerCatalog['github.new_repository'].source(account)).toEqual({ kind: 'polling' });
    expect(triggerCatalog['github.new_repository'].source(repo)).toBeUndefined();
    expect(triggerCatalog['github.new_gist'].source(account)).toEqual({ kind: 'polling' });
    expect(triggerCatalog['github.new_gist'].source(repo)).toBeUndefined();
  });

  it('repository triggers have no webhook for a bare account', () => {
    expect(triggerCatalog['github.new_push'].source(account)).toBeUndefined();
  });

  it('declares the filters users expect', () => {
    expect(triggerCatalog['github.new_commit'].filters).toContain('branches');
    expect(triggerCatalog['github.new_push'].filters).toContain('branches');
    expect(triggerCatalog['github.new_card_in_column'].filters).toEqual(['column']);
    expect(triggerCatalog['github.project_item_status_changed'].filters).toEqual(['project']);
    expect(triggerCatalog['github.new_label_on_issue'].filters).toContain('labels');
  });

  it('webhookEventsFor gives the sorted union without repeats', () => {
    expect(webhookEventsFor(['github.new_push', 'github.new_commit', 'github.new_issue', 'github.new_star'])).toEqual(['issues', 'push', 'star']);
    expect(webhookEventsFor(['github.new_gist'])).toEqual([]);
    expect(webhookEventsFor([])).toEqual([]);
  });

  it('every webhook trigger has at least one event, so its hook is never empty', () => {
    for (const id of triggerIds) {
      const source = triggerCatalog[id].source(repo) ?? triggerCatalog[id].source(org);
      if (source?.kind === 'webhook') expect(source.events.length, id).toBeGreaterThan(0);
    }
  });
});

describe('workflow outcome', () => {
  it.each([
    ['success', 'succeeded'],
    ['neutral', 'succeeded'],
    ['failure', 'failed'],
    ['timed_out', 'failed'],
    ['startup_failure', 'failed'],
    ['action_required', 'failed'],
    ['cancelled', 'cancelled'],
    ['skipped', 'cancelled'],
    ['stale', 'cancelled'],
    ['something_new', 'failed'],
    [null, 'failed'],
  ] as const)('%s -> %s', (conclusion, outcome) => {
    expect(outcomeOf(conclusion)).toBe(outcome);
  });
});
