import { describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { useFakeCodeHost } from '../helpers/code-host-setup';

const token = 'ghp_renamedUserToken00000000000000000000000';
const host = useFakeCodeHost({}, { env: { PUBLIC_URL: 'https://hooks.example.test' } });

describe('subscribing under an account login the product has not seen yet', () => {
  it("compares the token connection's user by id: the renamed user's subscription is the same one, under the new name", async () => {
    // The code host knows the user (id 583231) by the new login only.
    host.github.addUser(token, 'octo-renamed', 583231);
    const t = await host.context();
    const c = await t.connect({ accountLogin: 'octocat', accountId: '583231', repositories: ['octocat/Hello-World'] }, token);
    const sub = {
      id: SubscriptionRepo.newId(),
      connectionId: c.id,
      trigger: 'github.new_issue' as const,
      agentId: 'agent-1',
      repository: 'octocat/Hello-World',
      filters: {},
      delivery: 'polling' as const,
      createdAt: new Date().toISOString(),
    };
    await new SubscriptionRepo(t.ctx.store).create(sub);
    const again = await createSubscription(t.ctx, {
      connectionId: c.id,
      trigger: 'github.new_issue',
      agentId: 'agent-1',
      repository: 'octo-renamed/Hello-World',
    });
    expect(again).toMatchObject({ id: sub.id, existing: true, repository: 'octo-renamed/Hello-World' });
    const after = await new ConnectionRepo(t.ctx.store).get(c.id);
    expect(after).toMatchObject({ accountLogin: 'octo-renamed', repositories: ['octo-renamed/Hello-World'] });
    expect(host.github.requests.filter((r) => r.path.endsWith('/hooks'))).toEqual([]);
  });
});
