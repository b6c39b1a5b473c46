import { randomUUID } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import { realSleep, type Sleep } from '../ports';
import { AppError } from '../domain/errors';
import type { Connection, StoredToken, TokenOwner } from '../domain/model';
import type { ClientCredentials } from './providers';
import { requestToken, TokenEndpointError } from './token-client';
import { ConnectionRepo } from '../store/connection-repo';
import { tryLease } from '../store/lease';
import { credentialOf, SecretTokenProvider } from './secret-token-provider';
import { malformedStoredTokenReason, readStoredToken, writeStoredToken } from '../store/stored-token';
import type { TokenCredential, TokenOptions, TokenProvider } from '../ports/token-provider';
import { providerApiOrigin } from './token-origin';

export type RefreshDeps = Pick<
  AppContext,
  'config' | 'store' | 'secrets' | 'clock' | 'fetch' | 'logger' | 'metrics' | 'oauthClientSecret' | 'githubAppSecret' | 'providers'
> &
  Partial<Pick<AppContext, 'sleep'>>;

/** A provider's rules for its connections' tokens: its part `refresh` of the provider contract. */
export interface RefreshRules {
  /** Whether this connection's token is refreshed when it expires (a token the user made is read as it is). */
  refreshes(connection: Connection): boolean;
  /** The OAuth client whose refresh grant renews this connection's token. */
  client(deps: RefreshDeps, connection: Connection): Promise<ClientCredentials>;
}

declare module '../ports/provider-contract' {
  interface ProviderContract {
    /** Which connections' tokens are refreshed, and with which client (shared/oauth/refreshing-token-provider.ts). */
    refresh: RefreshRules;
  }
}

export interface RefreshOptions {
  /** Refresh when the token has less than this left (ms). */
  refreshAheadMs?: number;
  leaseSeconds?: number;
  /** Tries of the token endpoint on transient failures (network, 5xx, 429). */
  attempts?: number;
  /** How many times a worker that lost the lease looks again before giving up. */
  maxWaitPolls?: number;
  /** Replaces the context's sleep (tests of the backoff). */
  sleep?: Sleep;
  /** Identifies this worker on the lease row. */
  ownerId?: string;
}

/**
 * Access tokens for every connection. The collection service's expire (about two hours), as
 * do the code host's user tokens of GitHub Apps and of OAuth apps that opted in (8 hours):
 * they are refreshed ahead of expiry or on `forceRefresh` (after a 401), single-flight per
 * connection within the process (a map of promises) and across workers (a lease row,
 * re-reading the token after acquiring it). Tokens stored without an expiry (user-made
 * tokens, classic OAuth-app tokens) never expire and are read as they are. Only a dead
 * refresh token (`invalid_grant`, GitHub's `bad_refresh_token`, or past its own expiry)
 * marks a connection `reconnect_required`.
 */
export class RefreshingTokenProvider implements TokenProvider {
  private readonly plain: SecretTokenProvider;
  private readonly repo: ConnectionRepo;
  private readonly inflight = new Map<string, Promise<TokenCredential>>();
  private readonly o: Required<RefreshOptions>;

  constructor(
    private readonly deps: RefreshDeps,
    options: RefreshOptions = {},
  ) {
    this.plain = new SecretTokenProvider(deps.secrets);
    this.repo = new ConnectionRepo(deps.store);
    this.o = {
      refreshAheadMs: options.refreshAheadMs ?? 5 * 60 * 1000,
      leaseSeconds: options.leaseSeconds ?? 30,
      attempts: options.attempts ?? 3,
      maxWaitPolls: options.maxWaitPolls ?? 60,
      sleep: options.sleep ?? deps.sleep ?? realSleep,
      ownerId: options.ownerId ?? `worker-${randomUUID()}`,
    };
  }

  async accessToken(connection: Connection, options?: TokenOptions): Promise<string> {
    return (await this.credential(connection, options)).accessToken;
  }

  async credential(connection: Connection, options?: TokenOptions): Promise<TokenCredential> {
    try {
      return await this.credentialOrThrow(connection, options);
    } catch (e) {
      // A token that cannot be read is the connection's problem, and it must say so: not a
      // 500 on every call while it still says `connected`.
      if (e instanceof AppError && e.details?.reason === malformedStoredTokenReason && connection.status !== 'reconnect_required') {
        this.deps.logger.error('stored token cannot be read; the connection needs reconnecting', { connectionId: connection.id });
        return this.markReconnect(connection, 'the stored token cannot be read; reconnect the account');
      }
      throw e;
    }
  }

  private async credentialOrThrow(connection: Connection, options?: TokenOptions): Promise<TokenCredential> {
    const refused = options?.forceRefresh === true;
    if (!this.deps.providers[connection.provider].refresh.refreshes(connection)) {
      return this.plain.credential(connection, options);
    }
    if (connection.status === 'reconnect_required') return this.plain.credential(connection);
    // After a 401 the cache is not trusted: another worker may have refreshed the token.
    let token = await this.readToken(connection, refused);
    // The table says a newer token exists than the (cached) secret shows: read it afresh.
    if (connection.tokenExpiresAt !== undefined && token.expiresAt !== undefined && connection.tokenExpiresAt > token.expiresAt) {
      token = await this.readToken(connection, true);
    }
    // Replaced since the caller read it: the newer token is the answer, not another refresh.
    if (refused && options?.rejected !== undefined && token.accessToken !== options.rejected && !this.needsRefresh(token, connection)) {
      return credentialOf(token);
    }
    // A token stored without an expiry does not expire: there is nothing to refresh.
    const force = refused && (token.expiresAt ?? connection.tokenExpiresAt) !== undefined;
    if (!force && !this.needsRefresh(token, connection)) return credentialOf(token);
    const running = this.inflight.get(connection.id);
    if (running) return running;
    const flight = this.refreshAcrossWorkers(connection, token, force).finally(() => this.inflight.delete(connection.id));
    this.inflight.set(connection.id, flight);
    return flight;
  }

  private needsRefresh(token: StoredToken, connection: Connection): boolean {
    const expiresAt = token.expiresAt ?? connection.tokenExpiresAt;
    return expiresAt !== undefined && expiresAt - this.deps.clock.now() < this.o.refreshAheadMs;
  }

  private async readToken(connection: TokenOwner, fresh = false): Promise<StoredToken> {
    const token = await readStoredToken(this.deps.secrets, connection, fresh ? { fresh } : undefined);
    if (!token) throw new AppError('reconnect_required', `Connection ${connection.id} has no stored token; reconnect it`);
    return token;
  }

  private async refreshAcrossWorkers(connection: Connection, before: StoredToken, force: boolean): Promise<TokenCredential> {
    const name = `refresh#${connection.id}`;
    for (let poll = 0; poll <= this.o.maxWaitPolls; poll++) {
      const lease = { name, owner: this.o.ownerId, ttlSeconds: this.o.leaseSeconds };
      const run = await tryLease(this.deps, lease, () => this.refreshHoldingLease(connection, before, force));
      if (run.held) return run.value;
      // Another worker is refreshing: wait for its result rather than spend the refresh token twice.
      await this.o.sleep(Math.min(25 * 1.5 ** poll, 500));
      const now = await this.readToken(connection, true);
      if (now.accessToken !== before.accessToken && !this.needsRefresh(now, connection)) return credentialOf(now);
      const current = await this.repo.get(connection.id);
      if (!current) throw new AppError('connection_not_found', `Connection ${connection.id} does not exist`);
      if (current.status === 'reconnect_required') return this.plain.credential(current);
    }
    throw new AppError('unavailable', `The token of connection ${connection.id} is being refreshed elsewhere; try again`);
  }

  private async refreshHoldingLease(connection: Connection, before: StoredToken, force: boolean): Promise<TokenCredential> {
    const id = connection.id;
    const current = await this.repo.get(id);
    if (!current) throw new AppError('connection_not_found', `Connection ${id} does not exist`);
    if (current.status === 'reconnect_required') return this.plain.credential(current);
    // Re-read (bypassing caches) after acquiring: another worker may have refreshed meanwhile.
    const token = await this.readToken(current, true);
    if (token.accessToken !== before.accessToken && !this.needsRefresh(token, current)) return credentialOf(token);
    if (!force && !this.needsRefresh(token, current)) return credentialOf(token);
    if (!token.refreshToken) return this.markReconnect(current, 'the provider gave no refresh token and the access token expired');
    if (token.refreshTokenExpiresAt !== undefined && token.refreshTokenExpiresAt <= this.deps.clock.now()) {
      return this.markReconnect(current, 'the refresh token expired; reconnect the account');
    }

    const def = this.deps.providers[current.provider].oauth;
    const creds = await this.deps.providers[current.provider].refresh.client(this.deps, current);
    const log = this.deps.logger.child({ connectionId: id, provider: current.provider });
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await requestToken({ ...this.deps, timeoutMs: 8_000 }, def, def.tokenEndpoint(this.deps.config), creds, {
          grant_type: 'refresh_token',
          refresh_token: token.refreshToken,
        });
        // Providers that rotate refresh tokens send a new one; others keep the old one valid.
        // A refreshed token keeps the origin of the one it replaces (legacy ones: the provider's API).
        const next: StoredToken = {
          ...answer.token,
          refreshToken: answer.token.refreshToken ?? token.refreshToken,
          origin: token.origin ?? providerApiOrigin(this.deps, current.provider),
        };
        if (
          next.refreshTokenExpiresAt === undefined &&
          answer.token.refreshToken === undefined &&
          token.refreshTokenExpiresAt !== undefined
        ) {
          next.refreshTokenExpiresAt = token.refreshTokenExpiresAt;
        }
        await writeStoredToken(this.deps.secrets, current, next);
        await this.repo.update(id, (c) => {
          const updated: Connection = { ...c, updatedAt: new Date(this.deps.clock.now()).toISOString() };
          if (next.expiresAt !== undefined) updated.tokenExpiresAt = next.expiresAt;
          return updated;
        });
        this.deps.metrics.count('token_refreshes', 1, { provider: current.provider });
        log.info('oauth token refreshed', { attempt });
        return credentialOf(next);
      } catch (e) {
        if (!(e instanceof TokenEndpointError)) throw e;
        if (e.kind === 'invalid_grant') {
          // A worker whose lease expired may have refreshed meanwhile: then ours was merely stale.
          const latest = await this.readToken(current, true);
          if (latest.refreshToken !== token.refreshToken) return credentialOf(latest);
          log.warn('oauth refresh refused: the refresh token is dead', { oauthError: e.oauthError, status: e.status });
          return this.markReconnect(
            current,
            `the provider refused the refresh token (${e.oauthError ?? 'invalid_grant'}); reconnect the account`,
          );
        }
        if (e.kind === 'rejected') {
          log.error('oauth refresh rejected', { oauthError: e.oauthError, status: e.status });
          const why =
            e.limitBytes !== undefined ? `its answer is larger than ${e.limitBytes} bytes` : (e.oauthError ?? `HTTP ${e.status ?? '?'}`);
          throw new AppError('upstream_error', `Token refresh for connection ${id} was refused by the provider (${why})`, {
            ...(e.oauthError !== undefined ? { oauthError: e.oauthError } : {}),
            ...(e.limitBytes !== undefined ? { limitBytes: e.limitBytes } : {}),
          });
        }
        log.warn('oauth refresh failed transiently', { attempt, status: e.status });
        if (attempt >= this.o.attempts) {
          throw new AppError('unavailable', `Token refresh for connection ${id} failed temporarily; try again`);
        }
        await this.o.sleep(200 * 2 ** (attempt - 1));
      }
    }
  }

  private async markReconnect(connection: Connection, reason: string): Promise<never> {
    await this.repo.update(connection.id, (c) => ({
      ...c,
      status: 'reconnect_required',
      statusReason: reason,
      updatedAt: new Date(this.deps.clock.now()).toISOString(),
    }));
    throw new AppError('reconnect_required', `Connection ${connection.id} must be reconnected: ${reason}`);
  }
}
