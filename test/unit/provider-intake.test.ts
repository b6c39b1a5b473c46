import { describe, expect, it } from 'vitest';
import { intakeRouteTable } from '../../functions/webhook-intake/route-table';
import { webhookFor } from '../../shared/intake/provider-intake';
import type { AppContext } from '../../shared/ports/app-context';
import { providerWebhooks } from '../../shared/wiring/provider-intake';

// Building a source only closes over the context; nothing of it is read until a delivery runs.
const ctx = {} as AppContext;

describe('the intake takes its webhook sources from the providers', () => {
  it('answers every route of the intake table by exactly one provider webhook, and each provider webhook by a route of the table', () => {
    const declared = providerWebhooks.map((w) => w.route);
    expect([...declared].sort()).toEqual(Object.keys(intakeRouteTable).sort());
  });

  it('names the route no provider answers, instead of serving it without a source', () => {
    expect(() =>
      webhookFor(
        providerWebhooks.filter((w) => w.route !== 'hookDelivery'),
        'hookDelivery',
      ),
    ).toThrow(/hookDelivery/);
    expect(webhookFor(providerWebhooks, 'snareDelivery').path({ connectionId: 'conn_1', token: 't' })).toEqual({
      pathId: 'conn_1',
      pathToken: 't',
    });
  });

  it("checks a route's headers up front with the very check its source's verifier runs", async () => {
    for (const webhook of providerWebhooks) {
      const source = await webhook.source(ctx);
      expect(source.verifier.headers, webhook.route).toBe(webhook.headers);
    }
  });
});
