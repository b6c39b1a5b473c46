import { randomUUID } from 'node:crypto';
import type { AppInstallation, AppReach, Connection, Subscription } from '../../shared/domain/model';
import type { TriggerId } from '../../shared/domain/triggers';
import type { AppContext } from '../../shared/ports/app-context';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import type { Shot } from './seed';
import { sign, signSha1 } from './signed-delivery';
import { storeTestConnection } from './test-context';

/** The GitHub App settings of the tests: with them the App's webhook is on. */
export const testAppSecret = 'app-webhook-secret-for-tests-0123456789';
export const appEnv = {
  GITHUB_APP_ID: '5725',
  GITHUB_APP_SLUG: 'agent-integrations-test',
  GITHUB_APP_CLIENT_ID: 'Iv1.0123456789abcdef',
  GITHUB_APP_WEBHOOK_SECRET: testAppSecret,
} as const;

/** What every App-permission test installation grants: every permission and event the 26 triggers use. */
export const fullInstallation = {
  permissions: {
    metadata: 'read',
    contents: 'read',
    issues: 'write',
    pull_requests: 'write',
    actions: 'read',
    members: 'read',
    discussions: 'read',
    organization_projects: 'read',
    repository_projects: 'read',
  },
  events: [
    'commit_comment',
    'create',
    'discussion',
    'discussion_comment',
    'fork',
    'issue_comment',
    'issues',
    'member',
    'project_card',
    'projects_v2_item',
    'pull_request',
    'pull_request_review',
    'pull_request_review_comment',
    'push',
    'release',
    'repository',
    'star',
    'workflow_job',
    'workflow_run',
  ],
} satisfies Pick<AppInstallation, 'permissions' | 'events'>;

/**
 * Stores a `github_app` connection of installation `installationId` on `account` (the user
 * `login` connected through it), with a stored token standing in for its tokens.
 */
export async function storeAppConnection(
  ctx: Pick<AppContext, 'store' | 'secrets' | 'clock'>,
  o: {
    installationId: number;
    account: string;
    login?: string;
    userId?: string;
    installation?: Partial<AppInstallation>;
    repositories?: string[];
    /** Whose reach it acts with; `installation` (an administrator's connection) unless said. */
    reach?: AppReach | null;
  },
  token?: string,
): Promise<Connection> {
  const installation: AppInstallation = {
    id: o.installationId,
    account: { login: o.account, id: String(1000 + o.installationId), type: 'Organization' },
    repositorySelection: 'all',
    ...fullInstallation,
    ...o.installation,
  };
  return storeTestConnection(
    ctx,
    {
      authMethod: 'github_app',
      accountLogin: o.login ?? 'octocat',
      ...(o.userId ? { accountId: o.userId } : {}),
      installation,
      ...(o.reach === null ? {} : { reach: o.reach ?? 'installation' }),
      repositories: o.repositories ?? [],
    },
    token,
  );
}

/** A webhook subscription of an App connection, written as `POST /subscriptions` leaves it (for seeding many). */
export async function storeAppSubscription(
  ctx: Pick<AppContext, 'store'>,
  connection: Connection,
  trigger: TriggerId,
  repository: string,
  agentId: string,
): Promise<Subscription> {
  const sub: Subscription = {
    id: SubscriptionRepo.newId(),
    connectionId: connection.id,
    trigger,
    agentId,
    repository,
    filters: {},
    delivery: 'webhook',
    installationId: connection.installation?.id,
    createdAt: new Date().toISOString(),
  };
  await new SubscriptionRepo(ctx.store).create(sub);
  return sub;
}

/**
 * An App webhook delivery as the code host sends it: `payload` with `installation.id` set
 * (unless `installationId` is null), the App's headers, signed with `secret`.
 */
export function appShot(
  event: string,
  payload: Record<string, unknown>,
  o: { installationId: number | null; secret?: string; guid?: string },
): Shot {
  const withInstallation =
    o.installationId === null
      ? payload
      : { ...payload, installation: { id: o.installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMg==' } };
  const body = Buffer.from(JSON.stringify(withInstallation), 'utf8');
  const secret = o.secret ?? testAppSecret;
  const guid = o.guid ?? randomUUID();
  return {
    path: '/webhooks/github/app',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/044aadd',
      'x-github-event': event,
      'x-github-delivery': guid,
      'x-github-hook-id': '30',
      'x-github-hook-installation-target-type': 'integration',
      'x-github-hook-installation-target-id': appEnv.GITHUB_APP_ID,
      'x-hub-signature': signSha1(secret, body),
      'x-hub-signature-256': sign(secret, body),
    },
    body,
  };
}
