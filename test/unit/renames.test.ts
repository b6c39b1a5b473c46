import { describe, expect, it } from 'vitest';
import type { Connection, Subscription } from '../../shared/domain/model';
import { connectionAfter, seenIn, subscriptionAfter } from '../../shared/providers/github/renames';
import { matchesSubscription as matchesIn } from '../../shared/domain/subscription-match';
import { triggerCatalog } from '../../shared/wiring/providers';
import { isRepositoryAllowed } from '../../shared/domain/allow-list';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import { examplePayload } from '../helpers/signed-delivery';

const matchesSubscription = (sub: Parameters<typeof matchesIn>[0], mapped: Parameters<typeof matchesIn>[1]) =>
  matchesIn(sub, mapped, triggerCatalog);

const sub = (o: Partial<Subscription> = {}): Subscription => ({
  id: 'sub_1',
  connectionId: 'conn_1',
  trigger: 'github.new_issue',
  agentId: 'a',
  repository: 'Codertocat/Hello-World',
  filters: {},
  delivery: 'webhook',
  createdAt: '2026-01-01T00:00:00Z',
  ...o,
});

const connection = (o: Partial<Connection> = {}): Connection => ({
  id: 'conn_1',
  provider: 'github',
  accountLogin: 'octocat',
  accountId: '1',
  authMethod: 'token',
  status: 'connected',
  repositories: [],
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  ...o,
});

/** GitHub's `issues.opened` example (repository Codertocat/Hello-World, id 186853002), renamed to `name`. */
function issueUnder(name: string, id = 186853002) {
  const p = examplePayload('issues', 'opened') as Record<string, any>;
  p.repository.full_name = name;
  p.repository.id = id;
  return p;
}

describe('matching by the code host ids', () => {
  it('matches a subscription by repository id whatever the name, and refuses another repository under its name', () => {
    const [renamed] = mapDelivery({ event: 'issues', payload: issueUnder('Codertocat/New-Name'), accountLogin: 'octocat' });
    expect(renamed?.facts.repositoryId).toBe(186853002);
    expect(matchesSubscription(sub({ repositoryId: 186853002 }), renamed!)).toBe(true);
    expect(matchesSubscription(sub(), renamed!)).toBe(false);
    const [impostor] = mapDelivery({ event: 'issues', payload: issueUnder('Codertocat/Hello-World', 7), accountLogin: 'octocat' });
    expect(matchesSubscription(sub({ repositoryId: 186853002 }), impostor!)).toBe(false);
    expect(matchesSubscription(sub(), impostor!)).toBe(true);
  });

  it('allows an allow-list entry by its id under a new name, and by name while its id is unknown', () => {
    const c = connection({ repositories: ['Codertocat/Hello-World'], repositoryIds: { 'codertocat/hello-world': 5 } });
    expect(isRepositoryAllowed(c, 'Codertocat/New-Name', 5)).toBe(true);
    expect(isRepositoryAllowed(c, 'Codertocat/Hello-World', 6)).toBe(false);
    expect(isRepositoryAllowed(c, 'Codertocat/New-Name')).toBe(false);
    expect(isRepositoryAllowed(connection({ repositories: ['Codertocat/Hello-World'] }), 'codertocat/hello-world', 6)).toBe(true);
  });
});

describe('the stored rows after a delivery', () => {
  it("renames the owner part of a connection's allow-list and subscriptions when its user's id shows a new login", () => {
    const payload = issueUnder('octo-new/Hello-World', 9);
    payload.sender = { login: 'octo-new', id: 1, type: 'User' };
    const seen = seenIn('issues', payload);
    const after = connectionAfter(connection({ repositories: ['octocat/Other', 'someone/else'] }), seen);
    expect(after).toMatchObject({ accountLogin: 'octo-new', repositories: ['octo-new/Other', 'someone/else'] });
  });

  it('changes nothing when the delivery agrees with what is kept', () => {
    const payload = issueUnder('Codertocat/Hello-World');
    const seen = seenIn('issues', payload);
    expect(subscriptionAfter(sub({ repositoryId: 186853002 }), seen)).toBeUndefined();
    expect(connectionAfter(connection({ accountId: '21031067', accountLogin: 'Codertocat' }), seen)).toBeUndefined();
  });

  it("reads the former name of a transfer from GitHub's published payload", () => {
    const seen = seenIn('repository', examplePayload('repository', 'transferred'));
    expect(seen.repository).toEqual({ id: 186853261, fullName: 'Octocoders/Hello-World', formerName: 'octocat/Hello-World' });
    expect(subscriptionAfter(sub({ repository: 'octocat/Hello-World' }), seen)).toMatchObject({
      repository: 'Octocoders/Hello-World',
      repositoryId: 186853261,
    });
  });
});
