import type { AppContext } from '../../../ports/app-context';
import { AppError } from '../../../domain/errors';
import type { AppInstallation, AppReach, Connection, StoredToken } from '../../../domain/model';
import { secretNames } from '../../../domain/model';
import { ConnectionRepo } from '../../../store/connection-repo';
import { writeStoredToken } from '../../../store/stored-token';
import {
  connectedAnswer,
  exchangeFailure,
  failedAnswer,
  providerRefusal,
  sharedCallbackMessages,
  singleParam,
  takeState,
  type CallbackOutcome,
  type SharedCallbackErrorCode,
} from '../../../oauth/callback-steps';
import { appClientCredentials } from './app-credentials';
import { appRedirectUri } from './app-authorize';
import { identifyGithub } from '../oauth/identify';
import { githubOAuth } from '../oauth/definition';
import type { OAuthStateRecord } from '../../../oauth/state-store';
import { requestToken } from '../../../oauth/token-client';
import { claimConnectPage } from '../../../oauth/connect-claim';
import { providerApiOrigin } from '../../../oauth/token-origin';
import { githubTimeoutMs } from '../github-base';
import type { AppCallDeps } from './app-http';
import { appJwt } from './app-jwt';
import { getInstallation, listUserInstallationRepositories, listUserInstallations, type InstallationAnswer } from './installations';
import { connectionReach } from './user-reach';

/** Error codes put in `returnTo?error=`; stable, never carrying GitHub's text. */
export type AppCallbackErrorCode =
  | SharedCallbackErrorCode
  | 'installation_requested'
  | 'installation_missing'
  | 'installation_not_yours'
  | 'installation_choice_required'
  | 'installation_lookup_failed';

export const appCallbackMessages: Record<AppCallbackErrorCode, [number, string]> = {
  ...sharedCallbackMessages(
    { at: 'GitHub', who: 'GitHub' },
    {
      invalid_request: [
        400,
        'The callback carried no authorization code: turn on "Request user authorization (OAuth) during installation" for the App',
      ],
      not_configured: [501, 'The GitHub App is not configured'],
    },
  ),
  installation_requested: [409, 'The installation waits for an owner of the account to approve it; connect again once it is approved'],
  installation_missing: [409, 'No installation of the App was named or is visible to this user; install the App first'],
  installation_not_yours: [403, 'The installation named in the callback is not one this user can access'],
  installation_choice_required: [
    409,
    'The user can access several installations of the App: start again with the installationId to connect',
  ],
  installation_lookup_failed: [502, 'The installation could not be read from GitHub'],
};

/** At most this many installations are listed in `installations=` of a choice: enough for a picker. */
const maxChoices = 20;

function failed(record: OAuthStateRecord, code: AppCallbackErrorCode, extra: Record<string, string> = {}): CallbackOutcome {
  return failedAnswer(record, 'github', code, appCallbackMessages[code], extra);
}

/** Errors of the installation's read-back (with the App's JWT or the user's token): `installation_lookup_failed`. */
const installationLookupCodes = new Set(['upstream_error', 'unavailable', 'reconnect_required', 'forbidden', 'not_found']);

type AppStateRecord = OAuthStateRecord & Required<Pick<OAuthStateRecord, 'app'>>;

type Chosen = { ok: true; installation: InstallationAnswer } | { ok: false; code: AppCallbackErrorCode; extra?: Record<string, string> };

/**
 * Which installation the connection acts through, proven by the user's own token: the one in
 * the callback (a new installation, whose id in the URL anyone could have written) or the one
 * asked for must be among the user's installations of the App; else the only one visible.
 */
function choose(record: OAuthStateRecord, fromUrl: string | undefined, visible: InstallationAnswer[]): Chosen {
  const wanted = record.app?.mode === 'install' ? fromUrl : record.app?.installationId?.toString();
  if (wanted !== undefined) {
    if (!/^[1-9]\d{0,15}$/.test(wanted)) return { ok: false, code: 'installation_not_yours' };
    const found = visible.find((i) => i.id === Number(wanted));
    return found ? { ok: true, installation: found } : { ok: false, code: 'installation_not_yours' };
  }
  if (record.app?.mode === 'install' || visible.length === 0) return { ok: false, code: 'installation_missing' };
  if (visible.length === 1 && visible[0]) return { ok: true, installation: visible[0] };
  const installations = visible
    .slice(0, maxChoices)
    .map((i) => `${i.id}:${i.account.login}`)
    .join(',');
  return { ok: false, code: 'installation_choice_required', extra: { installations } };
}

/**
 * `GET /oauth/github-app/callback`: GitHub's return after the installation (with
 * `installation_id`, `setup_action` and the user's `code`) or after the user authorization
 * (`code` only). The state is checked as in the OAuth flows (bound to the browser, single
 * use); then the code is exchanged for the user's token, the installation proven to be the
 * user's, read with the App's JWT (account, selection, permissions, events), and the
 * `github_app` connection saved with the user's token beside it. After the state is consumed,
 * failures go back to `returnTo` with `error=` and store nothing.
 */
export async function handleAppCallback(ctx: AppContext, query: URLSearchParams, cookieHeader?: string): Promise<CallbackOutcome> {
  const record = await takeState(ctx, query, cookieHeader, {
    flow: 'github app',
    knows: (r): r is AppStateRecord => r.app !== undefined,
    redirectUri: appRedirectUri(ctx.config.publicUrl),
  });
  const log = ctx.logger.child({ provider: 'github_app', mode: record.app.mode });

  const refused = providerRefusal(query, log, 'github app');
  if (refused !== undefined) return failed(record, refused);
  if (singleParam(query, 'setup_action') === 'request') return failed(record, 'installation_requested');
  const code = singleParam(query, 'code');
  if (code === undefined) return failed(record, 'invalid_request');
  const installationParam = singleParam(query, 'installation_id');

  try {
    const creds = await appClientCredentials(ctx);
    const answer = await requestToken(ctx, githubOAuth, githubOAuth.tokenEndpoint(ctx.config), creds, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: record.redirectUri,
      // The installation page takes no PKCE challenge; the user authorization was given one.
      ...(record.app.mode === 'existing' ? { code_verifier: record.codeVerifier } : {}),
    });
    const identity = await identifyGithub(ctx, answer);
    const deps: AppCallDeps = { fetch: ctx.fetch, clock: ctx.clock, timeoutMs: githubTimeoutMs(ctx.config.upstreamTimeoutSeconds) };
    const apiBase = ctx.config.github.apiUrl;
    const visible = await listUserInstallations(deps, apiBase, answer.token.accessToken);
    const chosen = choose(record, installationParam, visible);
    if (!chosen.ok) {
      log.warn('github app callback: installation refused', { reason: chosen.code, installationId: installationParam?.slice(0, 20) });
      return failed(record, chosen.code, chosen.extra);
    }
    const jwt = await appJwt(creds.app, await ctx.githubAppSecret('privateKey'));
    const installation = await getInstallation(deps, apiBase, jwt, chosen.installation.id);
    // Who the connection acts as: the installation only for its account's administrator;
    // anyone else within the repositories GitHub lists for them, whatever the selection.
    const reach = await connectionReach(deps, apiBase, answer.token.accessToken, installation, identity.accountId);
    const repositories =
      reach === 'installation' && installation.repositorySelection === 'all'
        ? []
        : await listUserInstallationRepositories(deps, apiBase, answer.token.accessToken, installation.id);
    const page = await claimConnectPage(ctx, record);
    if (!page.ok) return failed(record, 'connect_page_used');
    const connectionId = await saveAppConnection(ctx, {
      ...(page.endUserId !== undefined ? { endUserId: page.endUserId } : {}),
      token: answer.token,
      accountLogin: identity.accountLogin,
      ...(identity.accountId !== undefined ? { accountId: identity.accountId } : {}),
      installation,
      reach,
      repositories,
      ...(record.label !== undefined ? { label: record.label } : {}),
    });
    log.info('github app connection saved', { connectionId, installationId: installation.id, reach });
    ctx.metrics.count('oauth_connected', 1, { provider: 'github_app' });
    return connectedAnswer(record, 'github', connectionId, identity.accountLogin);
  } catch (e) {
    const known = exchangeFailure(e, log, 'github app');
    if (known !== undefined) return failed(record, known);
    if (e instanceof AppError && installationLookupCodes.has(e.code)) {
      log.warn('github app callback: installation look-up failed', { error: e });
      return failed(record, 'installation_lookup_failed');
    }
    log.error('github app callback failed', { error: e });
    return failed(record, 'server_error');
  }
}

interface SaveAppInput {
  token: StoredToken;
  accountLogin: string;
  accountId?: string;
  installation: InstallationAnswer;
  reach: AppReach;
  repositories: string[];
  label?: string;
  endUserId?: string;
}

/**
 * Stores the user's token FIRST, then the connection (a crash in between leaves an orphan
 * secret, never a connection without a token). What the connection may do is the
 * installation's permissions: a GitHub App user token carries no OAuth scopes, so none are kept.
 */
async function saveAppConnection(ctx: AppContext, input: SaveAppInput): Promise<string> {
  const id = ConnectionRepo.newId();
  const now = new Date(ctx.clock.now()).toISOString();
  const token: StoredToken = { ...input.token, origin: providerApiOrigin(ctx, 'github') };
  delete token.scope;
  await writeStoredToken(ctx.secrets, { id, provider: 'github' }, token);
  const { suspended, appId: _appId, ...installation } = input.installation;
  const kept: AppInstallation = installation;
  const connection: Connection = {
    id,
    provider: 'github',
    accountLogin: input.accountLogin,
    authMethod: 'github_app',
    installation: kept,
    reach: input.reach,
    status: suspended ? 'suspended' : 'connected',
    repositories: input.repositories,
    createdAt: now,
    updatedAt: now,
  };
  if (suspended) connection.statusReason = 'the installation is suspended by its owner';
  if (input.label !== undefined) connection.label = input.label;
  if (input.endUserId !== undefined) connection.endUserId = input.endUserId;
  if (input.accountId !== undefined) connection.accountId = input.accountId;
  if (token.expiresAt !== undefined) connection.tokenExpiresAt = token.expiresAt;
  try {
    await new ConnectionRepo(ctx.store).create(connection);
  } catch (e) {
    await ctx.secrets.delete(secretNames.connectionToken(connection)).catch(() => undefined);
    throw e;
  }
  return id;
}
