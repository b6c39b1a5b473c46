import { describe, expect, it } from 'vitest';
import { mapDelivery } from '../../shared/providers/github/mapping/map-delivery';
import type { MappedEvent } from '../../shared/domain/mapping/types';
import type { Connection, Subscription } from '../../shared/domain/model';
import { triggerCatalog } from '../../shared/wiring/providers';
import { buildTriggerEvents } from '../../shared/dispatch/fan-out';
import { example } from '../fixtures/webhooks/examples';
import * as v from '../fixtures/webhooks/variants';

/**
 * A pull request made through the REST API (`pulls/create` takes no labels, assignees or
 * reviewers), `gh pr create -l -a -r` (createPullRequest, then updatePullRequest, then
 * requestReviews) or a bot arrives as `opened` without them, then `labeled`, `assigned`,
 * `review_requested` 1-3 s later, each sent by the opener (the published `labeled` example:
 * +2 s, by the pull request's author).
 */
const map = (payload: unknown) => mapDelivery({ event: 'pull_request', payload, accountLogin: 'octocat' });
const triggers = (mapped: MappedEvent[]) => mapped.map((m) => m.trigger).sort();

/** The published example of `key`, acted `seconds` after the opening; by someone else when `sender` is given. */
function acted(key: string, seconds: number, sender?: { login: string; id: number }): Record<string, unknown> {
  const p = v.actedLater(key, seconds);
  if (sender) p.sender = { ...(p.sender as Record<string, unknown>), ...sender };
  return p;
}

/** What the CLI's three calls make the code host send: the bare opening, then the additions. */
function cliDeliveries(): Array<[string, Record<string, unknown>]> {
  return [
    ['opened', example('pull_request.opened', 0)],
    ['labeled', example('pull_request.labeled')],
    ['assigned', acted('pull_request.assigned', 2)],
    ['review_requested', acted('pull_request.review_requested', 3)],
  ];
}

const connection: Connection = {
  id: 'conn_1',
  provider: 'github',
  accountLogin: 'octocat',
  authMethod: 'token',
  status: 'connected',
  repositories: [],
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

function sub(id: string, trigger: Subscription['trigger'], filters: Subscription['filters'] = {}): Subscription {
  return {
    id,
    connectionId: 'conn_1',
    trigger,
    agentId: 'agent',
    repository: 'Codertocat/Hello-World',
    filters,
    delivery: 'webhook',
    endpointId: 'ep_1',
    createdAt: '2026-01-01T00:00:00Z',
  };
}

/** The event ids each subscription would receive over all deliveries (dispatch's claim lets each id through once). */
function idsReceived(deliveries: Array<[string, Record<string, unknown>]>, subs: Subscription[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>(subs.map((s) => [s.id, new Set()]));
  for (const [i, [, payload]] of deliveries.entries()) {
    const mapped = map(payload);
    const subscriptions = new Map<Subscription['trigger'], Subscription[]>();
    for (const s of subs) subscriptions.set(s.trigger, [...(subscriptions.get(s.trigger) ?? []), s]);
    const events = buildTriggerEvents({
      catalog: triggerCatalog,
      connection,
      subscriptions,
      mapped,
      deliveryId: `guid-${i}`,
      occurredAt: 'now',
    });
    for (const e of events) out.get(e.subscriptionId)?.add(`${e.trigger} ${e.id}`);
  }
  return out;
}

describe('a pull request opened by the API, the CLI or a bot is one opening', () => {
  it("the opener's labels, assignees and reviewers sent 2-3 s after the opening fire no updated_pull_request", () => {
    for (const [action, payload] of cliDeliveries().slice(1))
      expect(triggers(map(payload)), action).not.toContain('github.updated_pull_request');
  });

  it('each subscription gets one new_pull_request, one new_review_request per reviewer and no update for the whole opening', () => {
    const subs = [
      sub('sub_new', 'github.new_pull_request'),
      sub('sub_upd', 'github.updated_pull_request'),
      sub('sub_rr', 'github.new_review_request'),
    ];
    const got = idsReceived(cliDeliveries(), subs);
    expect(got.get('sub_new')?.size).toBe(1);
    expect(got.get('sub_upd')?.size).toBe(0);
    expect(got.get('sub_rr')?.size).toBe(1);
  });

  it('the same holds whatever order the deliveries arrive in, and when one is redelivered', () => {
    const subs = [sub('sub_new', 'github.new_pull_request'), sub('sub_upd', 'github.updated_pull_request')];
    const deliveries = cliDeliveries();
    const shuffled = [deliveries[3]!, deliveries[1]!, deliveries[0]!, deliveries[2]!, deliveries[1]!];
    const got = idsReceived(shuffled, subs);
    expect(got.get('sub_new')?.size).toBe(1);
    expect(got.get('sub_upd')?.size).toBe(0);
    expect(idsReceived(deliveries, subs).get('sub_new')).toEqual(got.get('sub_new'));
  });

  it('a labels filter that only the label added after creation satisfies still sees the opening, once', () => {
    const bare = example('pull_request.opened', 0);
    expect((bare.pull_request as { labels: unknown[] }).labels).toEqual([]);
    const label = ((example('pull_request.labeled').pull_request as { labels: Array<{ name: string }> }).labels[0] as { name: string })
      .name;
    const got = idsReceived(cliDeliveries(), [sub('sub_bug', 'github.new_pull_request', { labels: [label] })]);
    expect(got.get('sub_bug')?.size).toBe(1);
  });

  it('a label the opener adds a minute later is an update', () => {
    expect(triggers(map(acted('pull_request.labeled', 60)))).toEqual(['github.updated_pull_request']);
    expect(triggers(map(acted('pull_request.review_requested', 60)))).toEqual(['github.new_review_request', 'github.updated_pull_request']);
  });

  it('a label someone else adds two seconds after the opening (an automation) is an update', () => {
    expect(triggers(map(acted('pull_request.labeled', 2, { login: 'labeler[bot]', id: 99 })))).toEqual(['github.updated_pull_request']);
  });

  it('additions to a draft opening are part of it and announce nothing more', () => {
    const p = v.actedLater('pull_request.labeled', 2);
    (p.pull_request as Record<string, unknown>).draft = true;
    expect(map(p)).toEqual([]);
  });
});
