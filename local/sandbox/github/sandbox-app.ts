import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../shared/ports/app-context';
import type { Connection } from '../../../shared/domain/model';
import { ConnectionRepo } from '../../../shared/store/connection-repo';
import { readStoredToken, writeStoredToken } from '../../../shared/store/stored-token';
import { originOf } from '../../../shared/oauth/token-origin';
import { deliveryHeaders, type SimulatedGitHub, type SimulatedUser } from './simulated-github';
import { SimulatedGitHubApp } from './simulated-github-app';
import type { AppDelivery } from './answer-back';
import type { Announcement } from './github-webhooks';

export const sandboxAppLabel = 'Sandbox demo (simulated GitHub App)';
const installationId = 1;

export interface SandboxApp {
  app: SimulatedGitHubApp;
  /** The GITHUB_APP_* settings of the simulated App, unless the environment names an App of its own. */
  environment(env: Record<string, string | undefined>, runtimePort: number): Record<string, string>;
  /** The demo App connection: made at the first start, found again (and given this run's user token) at the next. */
  ensureDemoConnection(ctx: AppContext): Promise<Connection | undefined>;
  /** The App's webhook, once `environment` chose to play the App: where the simulated code host sends the installation's events. */
  webhook(): AppDelivery | undefined;
}

/**
 * The simulated code host plays a GitHub App too (`npm run dev`): installed on the demo
 * account's repositories, its installation page and user authorization approved at once as
 * the demo user, and its installation and user tokens accepted by the simulated REST routes
 * as that account. The demo App connection is what the install flow's callback stores.
 */
export function playGitHubApp(github: SimulatedGitHub, user: SimulatedUser): SandboxApp {
  const app = new SimulatedGitHubApp({ autoApproveAs: { login: user.login, installationId } });
  app.addUser(user.login);
  app.addInstallation({
    id: installationId,
    account: { login: user.login, id: user.id, type: 'User' },
    members: new Set([user.login]),
    events: ['issues', 'issue_comment', 'pull_request', 'pull_request_review', 'push', 'release', 'create', 'fork', 'star'],
  });
  // `GET /installation/repositories` lists the world's repositories of the account (all, or the selected ones), in their published shape.
  app.repositoriesOf = (i) => {
    const mine = github.repos.get(i.account.login) ?? [];
    return i.repositorySelection === 'all' ? mine : mine.filter((r) => i.repositories.includes(String(r.full_name)));
  };
  github.before = (req) => {
    const answer = app.handle(req);
    if (answer) return answer;
    // The App's tokens act as the demo account on the rest of the simulated code host.
    const token = /^(?:Bearer|token) (.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    if (token && (app.installationTokens.has(token) || app.userTokens.has(token)) && !github.users.has(token))
      github.users.set(token, user);
    return undefined;
  };
  const own = (env: Record<string, string | undefined>) => !env.GITHUB_APP_ID && !env.GITHUB_APP_SLUG && !env.GITHUB_APP_CLIENT_ID;
  let played = false;
  let publicUrl = '';
  // The App's webhook secret, like its key pair, made at each start: `npm run trigger` signs App deliveries with it.
  const webhookSecret = randomBytes(32).toString('hex');
  // The manifest flow hands the same secret over, so an App made by it is the one the sandbox signs for.
  app.webhookSecret = webhookSecret;
  return {
    app,
    environment(env, runtimePort): Record<string, string> {
      played = own(env);
      if (!played) return {};
      publicUrl = env.PUBLIC_URL ?? `http://localhost:${runtimePort}`;
      app.callbackUrl = `${publicUrl}/oauth/github-app/callback`;
      return {
        GITHUB_OAUTH_URL: github.url,
        GITHUB_APP_ID: String(app.appId),
        GITHUB_APP_SLUG: app.slug,
        GITHUB_APP_CLIENT_ID: app.clientId,
        GITHUB_APP_CLIENT_SECRET: app.clientSecret,
        GITHUB_APP_PRIVATE_KEY: app.privateKeyPem,
        GITHUB_APP_WEBHOOK_SECRET: webhookSecret,
      };
    },
    async ensureDemoConnection(ctx) {
      if (!played) return undefined;
      const origin = originOf(ctx.config.github.apiUrl);
      // The simulated App's tokens live as long as this run: the demo user gets a new one each start.
      const fresh = app.issueUserToken(user.login);
      const token = { accessToken: fresh.accessToken, refreshToken: fresh.refreshToken, expiresAt: ctx.clock.now() + 28800 * 1000, origin };
      await rebindAppUserTokens(ctx, app, origin);
      return (await refreshDemoAppConnection(ctx, token)) ?? (await makeDemoAppConnection(ctx, app, user, token));
    },
    webhook: () => (played ? appWebhook(app, user, webhookSecret, `${publicUrl}/webhooks/github/app`) : undefined),
  };
}

type AppUserToken = { accessToken: string; refreshToken: string; expiresAt: number; origin: string };

/**
 * An App connection (one with an installation) made through the simulated App's install flow
 * holds a user token that App issued (kept across restarts): it is the sandbox's, so it is
 * re-bound to this run's port.
 */
async function rebindAppUserTokens(ctx: AppContext, app: SimulatedGitHubApp, origin: string): Promise<void> {
  for (const c of await new ConnectionRepo(ctx.store).list()) {
    if (c.sandboxDemo === true || c.installation === undefined) continue;
    const held = await readStoredToken(ctx.secrets, c);
    if (held && app.userTokens.has(held.accessToken) && held.origin !== origin) await writeStoredToken(ctx.secrets, c, { ...held, origin });
  }
}

/** The demo App connection of an earlier start, given this run's user token. */
async function refreshDemoAppConnection(ctx: AppContext, token: AppUserToken): Promise<Connection | undefined> {
  const repo = new ConnectionRepo(ctx.store);
  for (const c of await repo.list()) {
    if (c.sandboxDemo !== true || c.installation?.id !== installationId) continue;
    if (!(await readStoredToken(ctx.secrets, c))) continue;
    await writeStoredToken(ctx.secrets, c, token);
    // The demo user owns the account the App is installed on: an owner's connection.
    return (await repo.update(c.id, (x) => ({ ...x, reach: 'installation', tokenExpiresAt: token.expiresAt }))) ?? c;
  }
  return undefined;
}

/** The demo App connection as the install flow's callback stores it. */
async function makeDemoAppConnection(
  ctx: AppContext,
  app: SimulatedGitHubApp,
  user: SimulatedUser,
  token: AppUserToken,
): Promise<Connection> {
  const installation = app.installations.get(installationId);
  const now = new Date(ctx.clock.now()).toISOString();
  const connection: Connection = {
    id: ConnectionRepo.newId(),
    provider: 'github',
    label: sandboxAppLabel,
    accountLogin: user.login,
    accountId: String(user.id),
    authMethod: 'github_app',
    installation: {
      id: installationId,
      account: { login: user.login, id: String(user.id), type: 'User' },
      repositorySelection: 'all',
      permissions: installation?.permissions ?? {},
      events: installation?.events ?? [],
    },
    reach: 'installation',
    status: 'connected',
    repositories: [],
    tokenExpiresAt: token.expiresAt,
    sandboxDemo: true,
    createdAt: now,
    updatedAt: now,
  };
  await writeStoredToken(ctx.secrets, connection, token);
  await new ConnectionRepo(ctx.store).create(connection);
  return connection;
}

/**
 * The App's one webhook: an event of a repository of the account the App is installed on, of
 * an event the installation subscribes to, is sent there with the installation named in the
 * body, signed with the App's webhook secret, and logged in the App's delivery log.
 */
function appWebhook(app: SimulatedGitHubApp, user: SimulatedUser, secret: string, url: string): AppDelivery {
  const installation = () => app.installations.get(installationId);
  return {
    wants: (a: Announcement) =>
      (installation()?.events ?? []).includes(a.event) && a.repository.split('/')[0]?.toLowerCase() === user.login.toLowerCase(),
    async deliver(a, guid) {
      const body = JSON.stringify({
        ...a.payload,
        installation: { id: installationId, node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${installationId}` },
      });
      const headers = deliveryHeaders({
        secret,
        event: a.event,
        guid,
        body,
        hookId: app.appId,
        targetType: 'integration',
        targetId: app.appId,
      });
      const action = typeof a.payload.action === 'string' ? a.payload.action : undefined;
      let statusCode = 0;
      try {
        statusCode = (await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) })).status;
      } finally {
        app.recordHookDelivery({ guid, event: a.event, ...(action ? { action } : {}), installationId, statusCode });
      }
    },
  };
}
