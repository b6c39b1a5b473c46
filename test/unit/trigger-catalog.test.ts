import { describe, expect, it } from 'vitest';
import type { SubscriptionTarget } from '../../shared/domain/model';
import { outcomeOf } from '../../shared/domain/outcome';
import { joinCatalog, webhookEventsFor } from '../../shared/domain/trigger-catalog';
import { triggerCatalog } from '../../shared/wiring/providers';
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

  it("is joined from the providers' rows in the registry's order, and a provider that leaves a trigger without a row is refused", () => {
    expect(Object.keys(triggerCatalog)).toEqual([...triggerIds]);
    const { 'github.new_gist': _gist, ...withoutGist } = triggerCatalog;
    expect(() => joinCatalog([withoutGist])).toThrow(/no row for github\.new_gist/);
    expect(joinCatalog([triggerCatalog])['github.new_gist']).toBe(triggerCatalog['github.new_gist']);
  });

  it('star is the star event; watching has no webhook (watch is sent for stars): new_watcher is polled on a repository', () => {
    expect(triggerCatalog['github.new_star'].source(repo)).toEqual({ kind: 'webhook', scope: 'either', events: ['star'] });
    expect(triggerCatalog['github.new_watcher'].source(repo)).toEqual({ kind: 'polling' });
    expect(triggerCatalog['github.new_watcher'].source(org)).toBeUndefined();
    expect(webhookEventsFor(triggerCatalog, ['github.new_watcher', 'github.new_star'])).toEqual(['star']);
  });

  it('tags come from create only (push adds duplicates, and neither is sent for more than three tags at once)', () => {
    expect(webhookEventsFor(triggerCatalog, ['github.new_tag'])).toEqual(['create']);
    expect(triggerCatalog['github.new_tag'].includes).toMatch(/more than three/);
  });

  it('says what each trigger includes; classic project cards are Enterprise Server only', () => {
    for (const id of Object.keys(triggerCatalog) as Array<keyof typeof triggerCatalog>)
      expect(triggerCatalog[id].includes.length, id).toBeGreaterThan(10);
    expect(triggerCatalog['github.new_card_in_column'].description).toMatch(/Enterprise Server only.*2025-04-01/);
  });

  it('Projects (v2) status changes need an organization hook', () => {
    expect(triggerCatalog['github.project_item_status_changed'].source(org)).toEqual({
      kind: 'webhook',
      scope: 'organization',
      events: ['projects_v2_item'],
    });
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
    expect(webhookEventsFor(triggerCatalog, ['github.new_push', 'github.new_commit', 'github.new_issue', 'github.new_star'])).toEqual([
      'issues',
      'push',
      'star',
    ]);
    expect(webhookEventsFor(triggerCatalog, ['github.new_gist'])).toEqual([]);
    expect(webhookEventsFor(triggerCatalog, [])).toEqual([]);
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
