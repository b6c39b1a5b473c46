import { describe, expect, it } from 'vitest';
import type { Config } from '../../shared/config/config';
import type { Subscription } from '../../shared/domain/model';
import { providerRegistry } from '../../shared/wiring/providers';

const ctx = { config: { publicUrl: 'https://hooks.example.test' } as Config };
const sub = (over: Partial<Subscription>): Subscription =>
  ({ id: 'sub_1', connectionId: 'conn_1', agentId: 'a', filters: {}, createdAt: '', ...over }) as Subscription;

describe("each provider's hook manager says which URL of a subscription may be shown", () => {
  it("the code host's hook shows its endpoint's URL; a polled or App subscription shows none", () => {
    const hooks = providerRegistry.github.hooks;
    expect(hooks.webhookUrl(ctx, sub({ trigger: 'github.new_issue', delivery: 'webhook', endpointId: 'ep_1' }))).toBe(
      'https://hooks.example.test/webhooks/github/ep_1',
    );
    expect(hooks.webhookUrl(ctx, sub({ trigger: 'github.new_issue', delivery: 'polling' }))).toBeUndefined();
    expect(hooks.webhookUrl(ctx, sub({ trigger: 'github.new_issue', delivery: 'webhook', installationId: 7 }))).toBeUndefined();
  });

  it("the collection service's hook URL carries its connection's secret token and is never shown", () => {
    const hooks = providerRegistry.contentsnare.hooks;
    expect(
      hooks.webhookUrl(
        ctx,
        sub({ trigger: 'contentsnare.request_completed' as Subscription['trigger'], delivery: 'webhook', endpointId: 'cs_conn_1' }),
      ),
    ).toBeUndefined();
  });

  it('names each connection kind in the registry under its own id', () => {
    expect(Object.entries(providerRegistry).map(([id, p]) => [id, p.id, p.connectionKind])).toEqual([
      ['github', 'github', 'code-host'],
      ['contentsnare', 'contentsnare', 'collection-service'],
    ]);
  });
});
