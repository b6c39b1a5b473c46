import { eventBody } from '../dispatch/sign-event';
import type { Provider, Subscription, SubscriptionTarget } from '../domain/model';
import type { TriggerCatalog } from '../domain/trigger-catalog';
import { triggerTools } from '../domain/trigger-tools';
import { triggerIds, type TriggerId } from '../domain/triggers';
import { buildTriggerEvents } from '../dispatch/fan-out';
import type { TriggerExamples } from '../ports/trigger-examples';

export interface TriggerListing {
  id: TriggerId;
  title: string;
  description: string;
  includes: string;
  /** What a subscription names: `repository`, `organization`, or nothing (the account). */
  targets: string[];
  filters: string[];
  /** `webhook` when a webhook serves it, `polling` when it is polled. */
  delivery: 'webhook' | 'polling';
  /** Collection service: whether the scheduled check recovers a missed delivery (`includes` says why not). */
  recoverable?: boolean;
  /** The tool steps that answer it: what an agent woken by it reads and does next. */
  answeredBy: string[];
  /** The body the agent runtime receives, built from the documented example through the real mapping; null when none could be built. */
  exampleEvent: unknown;
}

const candidates: Array<{ name: string; target: SubscriptionTarget; fields: Partial<Subscription> }> = [
  { name: 'repository', target: { kind: 'repository', repository: 'octocat/hello-world' }, fields: { repository: 'octocat/hello-world' } },
  { name: 'organization', target: { kind: 'organization', organization: 'octo-org' }, fields: { organization: 'octo-org' } },
  { name: 'account', target: { kind: 'account' }, fields: {} },
];

function targetsOf(catalog: TriggerCatalog, trigger: TriggerId): typeof candidates {
  return candidates.filter((c) => {
    try {
      return catalog[trigger].source(c.target) !== undefined;
    } catch {
      return false;
    }
  });
}

function exampleEvent(catalog: TriggerCatalog, trigger: TriggerId, fields: Partial<Subscription>, examples: TriggerExamples): unknown {
  try {
    const { connection } = examples;
    const sub: Subscription = {
      id: 'sub_example',
      connectionId: connection.id,
      trigger,
      agentId: 'agent-example',
      filters: {},
      delivery: 'webhook',
      createdAt: '2024-01-01T00:00:00.000Z',
      ...fields,
    };
    const [event] = buildTriggerEvents({
      catalog,
      connection,
      subscriptions: new Map([[trigger, [sub]]]),
      mapped: examples.mapped(trigger, sub, connection),
      deliveryId: 'example-delivery',
      occurredAt: '2024-01-01T00:00:00.000Z',
    });
    return event ? JSON.parse(eventBody(event)) : null;
  } catch {
    return null;
  }
}

/** `GET /triggers`: every trigger (code host, then collection service) with its filters, targets and an example event. */
export function triggerListing(catalog: TriggerCatalog, examples: Readonly<Record<Provider, TriggerExamples>>): TriggerListing[] {
  return triggerIds.map((id) => {
    const def = catalog[id];
    const targets = targetsOf(catalog, id);
    return {
      id,
      title: def.title,
      description: def.description,
      includes: def.includes,
      targets: targets.map((t) => t.name),
      filters: [...def.filters],
      delivery: def.events.length > 0 ? 'webhook' : 'polling',
      ...(def.recoverable !== undefined ? { recoverable: def.recoverable } : {}),
      answeredBy: [...triggerTools[id]],
      exampleEvent: exampleEvent(catalog, id, targets[0]?.fields ?? {}, examples[def.provider]),
    };
  });
}
