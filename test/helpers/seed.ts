import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { secretNames, type Connection, type Subscription } from '../../shared/domain/model';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { examplePayload, sign } from './signed-delivery';

/** One signed delivery, ready to send (tests in-process, the benchmark over HTTP). */
export interface Shot {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** The repository of the example payloads (`@octokit/webhooks-examples`). */
export const exampleRepository = 'Codertocat/Hello-World';

export interface Tenant {
  connection: Connection;
  endpointId: string;
  secret: string;
  subscriptions: Subscription[];
}

/**
 * One tenant as the platform API would leave it: a connection, the endpoint (hook) of its
 * repository with its secret, and `matching` subscriptions to `github.new_issue` there.
 */
export async function seedTenant(
  ctx: Pick<AppContext, 'store' | 'secrets'>,
  matching = 1,
  repository = exampleRepository,
): Promise<Tenant> {
  const now = new Date().toISOString();
  const connection: Connection = {
    id: ConnectionRepo.newId(),
    provider: 'github',
    accountLogin: 'octocat',
    authMethod: 'token',
    status: 'connected',
    repositories: [],
    createdAt: now,
    updatedAt: now,
  };
  await new ConnectionRepo(ctx.store).create(connection);
  const target = { kind: 'repository' as const, repository };
  const endpointId = endpointIdFor(connection.id, target);
  const secret = `bench-secret-${randomUUID()}`;
  await ctx.secrets.put(secretNames.endpointSecret(endpointId), secret);
  await new EndpointRepo(ctx.store).create({
    id: endpointId,
    connectionId: connection.id,
    target,
    hookId: 1,
    events: ['issues'],
    createdAt: now,
  });
  const subscriptions: Subscription[] = [];
  for (let i = 0; i < matching; i++) {
    const sub: Subscription = {
      id: SubscriptionRepo.newId(),
      connectionId: connection.id,
      trigger: 'github.new_issue',
      agentId: `agent-${i}`,
      repository,
      filters: {},
      delivery: 'webhook',
      endpointId,
      createdAt: now,
    };
    await new SubscriptionRepo(ctx.store).create(sub);
    subscriptions.push(sub);
  }
  return { connection, endpointId, secret, subscriptions };
}

/**
 * `count` subscriptions of other tenants on other repositories (their own endpoints), the
 * same trigger: what a delivery must NOT pay for (fan-out scaling).
 */
export async function seedOtherSubscriptions(ctx: Pick<AppContext, 'store'>, count: number, concurrency = 32): Promise<void> {
  const repo = new SubscriptionRepo(ctx.store);
  const now = new Date().toISOString();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const connectionId = `conn_other${String(i % 500).padStart(27, '0')}`;
      const repository = `other-owner-${i % 500}/repo-${i}`;
      const endpointId = endpointIdFor(connectionId, { kind: 'repository', repository });
      await repo.create({
        id: SubscriptionRepo.newId(),
        connectionId,
        trigger: 'github.new_issue',
        agentId: `other-agent-${i}`,
        repository,
        filters: {},
        delivery: 'webhook',
        endpointId,
        createdAt: now,
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** The real `issues.opened` example payload, as bytes. */
export function issueOpenedBody(extra?: (payload: Record<string, any>) => void): Buffer {
  const payload = examplePayload('issues', 'opened') as Record<string, any>;
  extra?.(payload);
  return Buffer.from(JSON.stringify(payload), 'utf8');
}

/**
 * Real deliveries never share their bytes, and the intake dedupes on the signed body as well
 * as on the delivery id (a replay under a new id is a duplicate): an issue body is tagged
 * with its GUID (`issue.node_id`), so one GUID always has the same bytes (a redelivery) and
 * two GUIDs never do.
 */
function taggedWith(body: Buffer, guid: string): Buffer {
  let payload: { issue?: unknown } | undefined;
  try {
    payload = JSON.parse(body.toString('utf8')) as { issue?: unknown };
  } catch {
    return body;
  }
  if (typeof payload?.issue !== 'object' || payload.issue === null) return body;
  (payload.issue as Record<string, unknown>).node_id = `I_${guid}`;
  return Buffer.from(JSON.stringify(payload), 'utf8');
}

/** A signed delivery of `body` (tagged with its GUID, see taggedWith) to the tenant's endpoint under a fresh GUID. */
export function signedShot(
  t: Pick<Tenant, 'endpointId' | 'secret'>,
  untagged: Buffer,
  guid: string = randomUUID(),
  event = 'issues',
): Shot {
  const body = taggedWith(untagged, guid);
  return {
    path: `/webhooks/github/${t.endpointId}`,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': guid,
      'x-hub-signature-256': sign(t.secret, body),
    },
    body,
  };
}
