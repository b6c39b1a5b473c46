import { eventBody } from '../dispatch/sign-event';
import type { Connection, Subscription, SubscriptionTarget } from '../domain/model';
import { triggerCatalog } from '../domain/trigger-catalog';
import { triggerTools } from '../domain/trigger-tools';
import { triggerIds, type TriggerId } from '../domain/triggers';
import { buildTriggerEvents } from '../dispatch/fan-out';
import type { ExampleDoc } from './example-docs';
import { mappedForQueue } from './example-events';
import { snareExampleMapped } from './snare-examples';
import { isSnareTriggerId } from '../domain/triggers';

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

const exampleConnection: Connection = {
  id: 'conn_example',
  provider: 'github',
  accountLogin: 'octocat',
  authMethod: 'token',
  status: 'connected',
  repositories: [],
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-01T00:00:00.000Z',
};

const candidates: Array<{ name: string; target: SubscriptionTarget; fields: Partial<Subscription> }> = [
  { name: 'repository', target: { kind: 'repository', repository: 'octocat/hello-world' }, fields: { repository: 'octocat/hello-world' } },
  { name: 'organization', target: { kind: 'organization', organization: 'octo-org' }, fields: { organization: 'octo-org' } },
  { name: 'account', target: { kind: 'account' }, fields: {} },
];

function targetsOf(trigger: TriggerId): typeof candidates {
  return candidates.filter((c) => {
    try {
      return triggerCatalog[trigger].source(c.target) !== undefined;
    } catch {
      return false;
    }
  });
}

function exampleEvent(trigger: TriggerId, fields: Partial<Subscription>, loadExample: (t: TriggerId) => ExampleDoc): unknown {
  try {
    const sub: Subscription = {
      id: 'sub_example',
      connectionId: exampleConnection.id,
      trigger,
      agentId: 'agent-example',
      filters: {},
      delivery: 'webhook',
      createdAt: '2024-01-01T00:00:00.000Z',
      ...fields,
    };
    const snare = isSnareTriggerId(trigger);
    const connection = snare
      ? { ...exampleConnection, provider: 'contentsnare' as const, accountLogin: 'Olivia Owner' }
      : exampleConnection;
    const mapped = snare ? snareExampleMapped(trigger) : mappedForQueue(loadExample(trigger), sub, exampleConnection);
    const [event] = buildTriggerEvents({
      connection,
      subscriptions: new Map([[trigger, [sub]]]),
      mapped,
      deliveryId: 'example-delivery',
      occurredAt: '2024-01-01T00:00:00.000Z',
    });
    return event ? JSON.parse(eventBody(event)) : null;
  } catch {
    return null;
  }
}

/** `GET /triggers`: every trigger (code host, then collection service) with its filters, targets and an example event. */
export function triggerListing(loadExample: (t: TriggerId) => ExampleDoc): TriggerListing[] {
  return triggerIds.map((id) => {
    const def = triggerCatalog[id];
    const targets = targetsOf(id);
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
      exampleEvent: exampleEvent(id, targets[0]?.fields ?? {}, loadExample),
    };
  });
}
