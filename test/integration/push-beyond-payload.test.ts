import examples from '@octokit/webhooks-examples';
import { describe, expect, it } from 'vitest';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import type { Subscription } from '../../shared/domain/model';
import { triggerCatalog } from '../../shared/wiring/providers';
import { buildTriggerEvents, enqueueEvents } from '../../shared/dispatch/fan-out';
import { consumerPass } from '../helpers/consumer-pass';
import { useFakeCodeHost } from '../helpers/code-host-setup';

/**
 * A push payload carries at most 2,048 commits; the code host says to read the rest through
 * its Commits API. Played as published: a push of 2,100 commits whose payload lists the
 * first 2,048, the history behind the compare API. Everything the intake would queue goes
 * through dispatch passes; each commit must reach the agent runtime once.
 */
const token = 'ghp_pushBeyondPayloadToken000000000000000';
const host = useFakeCodeHost({ [token]: 'Codertocat' });
const repository = 'Codertocat/Hello-World';

function pushOf(shas: string[], before: string): Record<string, unknown> {
  const published = examples.find((d) => d.name === 'push')?.examples[4] as unknown as Record<string, any>;
  const p = structuredClone(published);
  const template = p.commits[0] as Record<string, unknown>;
  return {
    ...p,
    before,
    after: shas.at(-1),
    created: false,
    commits: shas.slice(0, 2048).map((sha, i) => ({ ...template, id: sha, tree_id: sha, message: `commit ${i + 1}`, distinct: true })),
    head_commit: { ...template, id: shas.at(-1) },
  };
}

describe('new_commit beyond the 2,048 commits of a push payload', () => {
  it('a push of 2,100 commits is 2,100 new_commit events, each once; the follow-up that reads the rest never reaches the agent runtime', async () => {
    const t = await host.context();
    const connection = await t.connect({ accountLogin: 'Codertocat' }, token);
    const base = 'f'.repeat(40);
    const shas = Array.from({ length: 2100 }, (_, i) => (i + 1).toString(16).padStart(40, '0'));
    host.github.history.set(repository, [
      host.github.commit(repository, base, 'base', '2026-01-01T00:00:00Z'),
      ...shas.map((sha, i) => host.github.commit(repository, sha, `commit ${i + 1}`, '2026-01-02T00:00:00Z')),
    ]);
    const sub: Subscription = {
      id: 'sub_commits',
      connectionId: connection.id,
      trigger: 'github.new_commit',
      agentId: 'agent',
      repository,
      filters: { branches: ['master'] },
      delivery: 'webhook',
      endpointId: 'ep_x',
      createdAt: '2026-01-01T00:00:00Z',
    };
    // What the intake does with the delivery: map it and queue one event per matching subscription.
    const mapped = mapDelivery({ event: 'push', payload: pushOf(shas, base), accountLogin: 'Codertocat' });
    const events = buildTriggerEvents({
      catalog: triggerCatalog,
      connection,
      subscriptions: new Map([[sub.trigger, [sub]]]),
      mapped,
      deliveryId: 'guid-push',
      occurredAt: 'now',
    });
    await enqueueEvents(t.ctx, events);

    const logged = () => t.logLines.filter((l) => l.includes('AGENT_RUNTIME_URL is not set')).map((l) => JSON.parse(l).triggerEvent);
    for (let i = 0; i < 400 && (await consumerPass(t.ctx, t.queues.queue)).received > 0; i++);
    const delivered = logged();
    expect(delivered.every((e) => e.event.follow_up === undefined)).toBe(true);
    const ids = delivered.map((e) => e.event.commit.id);
    expect(ids).toHaveLength(2100);
    expect(new Set(ids)).toEqual(new Set(shas));
    expect(new Set(delivered.map((e) => e.id)).size).toBe(2100);
    expect(delivered.find((e) => e.event.commit.id === shas[2099])?.event).toMatchObject({
      ref: 'refs/heads/master',
      branch: 'master',
      commit: { id: shas[2099], message: 'commit 2100' },
    });
    // 2,100 commits, 100 a page, read with the connection's token.
    expect(host.github.requests.filter((r) => r.path.includes('/compare/'))).toHaveLength(21);
  });

  it('a push that fits in its payload reads nothing more', async () => {
    const shas = Array.from({ length: 3 }, (_, i) => (i + 1).toString(16).padStart(40, '0'));
    const mapped = mapDelivery({ event: 'push', payload: pushOf(shas, 'f'.repeat(40)), accountLogin: 'Codertocat' });
    expect(mapped.filter((m) => m.trigger === 'github.new_commit').map((m) => m.dedupeKey)).toEqual(shas.map((s) => `commit:${s}`));
  });
});
