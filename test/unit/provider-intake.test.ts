import { describe, expect, it } from 'vitest';
import { intakeRouteTable } from '../../functions/webhook-intake/route-table';
import { webhookFor } from '../../shared/intake/provider-intake';
import type { Providers } from '../../shared/ports/provider-contract';
import { providerRegistry } from '../../shared/wiring/providers';

describe('the intake takes its webhook sources from the providers', () => {
  it('answers every route of the intake table by exactly one provider webhook, and each provider webhook by a route of the table', () => {
    const declared = Object.values(providerRegistry).flatMap((p) => p.intake.webhooks.map((w) => w.route));
    expect([...declared].sort()).toEqual(Object.keys(intakeRouteTable).sort());
  });

  it('names the route no provider answers, instead of serving it without a source', () => {
    const none = { ...providerRegistry, github: { ...providerRegistry.github, intake: { webhooks: [] } } } as Providers;
    expect(() => webhookFor(none, 'hookDelivery')).toThrow(/hookDelivery/);
    expect(webhookFor(providerRegistry, 'snareDelivery').path({ connectionId: 'conn_1', token: 't' })).toEqual({
      pathId: 'conn_1',
      pathToken: 't',
    });
  });
});
