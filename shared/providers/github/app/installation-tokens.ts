import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { AppContext } from '../../../ports/app-context';
import type { TokenSealer } from '../../../ports/token-sealer';
import { AppError } from '../../../domain/errors';
import { tryLease } from '../../../store/lease';
import { githubTimeoutMs } from '../github-base';
import { appCall } from './app-http';
import { appJwt } from './app-jwt';
import { readTokenRow, writeTokenRow, type InstallationToken } from './installation-token-row';

export type { InstallationToken } from './installation-token-row';

export type InstallationTokenDeps = Pick<
  AppContext,
  'config' | 'store' | 'clock' | 'sleep' | 'fetch' | 'logger' | 'metrics' | 'githubAppSecret'
> & {
  /** Seals the shared token for its row: KMS on AWS, the local secret store's key locally. */
  sealer: TokenSealer;
};

export interface InstallationTokenOptions {
  /** A token with less than this left is replaced (ms); GitHub's last an hour. */
  refreshAheadMs?: number;
  leaseSeconds?: number;
  /** How many times a caller that lost the mint lease looks again for the winner's token. */
  maxWaitPolls?: number;
  ownerId?: string;
}

/** GitHub issues installation tokens for one hour: a longer `expires_at` is not believed. */
export const installationTokenLifetimeMs = 60 * 60 * 1000;

const mintedSchema = z.object({ token: z.string().min(1).max(1000), expires_at: z.iso.datetime({ offset: true }) });

/**
 * Installation access tokens of the GitHub App, minted from the App's JWT
 * (`POST /app/installations/{id}/access_tokens`) and kept until shortly before they expire:
 * in this container (a map), and for every container in the table, one row per installation
 * sealed under the platform's key (installation-token-row.ts), so a cold start reuses the token
 * another container minted without a secret per installation. A mint is
 * single-flight within the container (a map of promises) and across containers (a lease per
 * installation; the losers wait for the winner's token), so a burst of callers costs one mint
 * per installation per token lifetime. Expiry is judged on the injected clock.
 */
export class InstallationTokens {
  private readonly held = new Map<number, InstallationToken>();
  private readonly inflight = new Map<number, Promise<InstallationToken>>();
  private readonly o: Required<InstallationTokenOptions>;

  constructor(
    private readonly deps: InstallationTokenDeps,
    options: InstallationTokenOptions = {},
  ) {
    this.o = {
      refreshAheadMs: options.refreshAheadMs ?? 5 * 60 * 1000,
      leaseSeconds: options.leaseSeconds ?? 30,
      maxWaitPolls: options.maxWaitPolls ?? 40,
      ownerId: options.ownerId ?? `worker-${randomUUID()}`,
    };
  }

  /**
   * A live token of the installation. `rejected`: the code host refused this token (401), so
   * it is not given again; a newer one, or a fresh mint.
   */
  async token(installationId: number, options: { rejected?: string } = {}): Promise<InstallationToken> {
    const held = this.held.get(installationId);
    if (held && this.usable(held, options.rejected)) return held;
    const running = this.inflight.get(installationId);
    if (running) return running;
    const flight = this.obtain(installationId, options.rejected).finally(() => this.inflight.delete(installationId));
    this.inflight.set(installationId, flight);
    return flight;
  }

  private usable(t: InstallationToken, rejected: string | undefined): boolean {
    return t.token !== rejected && t.expiresAt - this.deps.clock.now() > this.o.refreshAheadMs;
  }

  private async obtain(installationId: number, rejected: string | undefined): Promise<InstallationToken> {
    const stored = await this.readStored(installationId, rejected !== undefined);
    if (stored && this.usable(stored, rejected)) return this.hold(installationId, stored);
    for (let poll = 0; poll <= this.o.maxWaitPolls; poll++) {
      const lease = { name: `app-token#${installationId}`, owner: this.o.ownerId, ttlSeconds: this.o.leaseSeconds };
      const run = await tryLease(this.deps, lease, async () => {
        // Another container may have minted while this one waited for the lease.
        const now = await this.readStored(installationId, true);
        if (now && this.usable(now, rejected)) return this.hold(installationId, now);
        const minted = await this.mint(installationId);
        await writeTokenRow(this.deps, installationId, minted);
        return this.hold(installationId, minted);
      });
      if (run.held) return run.value;
      await this.deps.sleep(Math.min(25 * 1.5 ** poll, 500));
      const now = await this.readStored(installationId, true);
      if (now && this.usable(now, rejected)) return this.hold(installationId, now);
    }
    throw new AppError('unavailable', `The token of installation ${installationId} is being minted elsewhere; try again`);
  }

  private hold(installationId: number, t: InstallationToken): InstallationToken {
    this.held.set(installationId, t);
    return t;
  }

  /**
   * The shared token, or undefined when there is none, it does not open (another key, or altered),
   * or it was issued for another API origin than the App's now (GITHUB_API_URL changed): it is
   * then minted anew. `fresh`: a strongly consistent read, for the reads that decide to mint.
   */
  private async readStored(installationId: number, fresh: boolean): Promise<InstallationToken | undefined> {
    const stored = await readTokenRow(this.deps, installationId, fresh);
    return stored && stored.origin === new URL(this.deps.config.github.apiUrl).origin ? stored : undefined;
  }

  private async mint(installationId: number): Promise<InstallationToken> {
    const app = this.deps.config.github.app;
    if (!app)
      throw new AppError('not_configured', 'The GitHub App is not configured: set GITHUB_APP_ID, GITHUB_APP_SLUG and GITHUB_APP_CLIENT_ID');
    const jwt = await appJwt(app, await this.deps.githubAppSecret('privateKey'));
    const apiBase = this.deps.config.github.apiUrl;
    let data: unknown;
    try {
      data = await appCall(
        { fetch: this.deps.fetch, clock: this.deps.clock, timeoutMs: githubTimeoutMs(this.deps.config.upstreamTimeoutSeconds) },
        {
          method: 'POST',
          url: `${apiBase}/app/installations/${installationId}/access_tokens`,
          bearer: jwt,
          maxBytes: 1024 * 1024,
          service: 'the installation token mint',
        },
      );
    } catch (e) {
      throw mintRefusal(e, installationId);
    }
    const parsed = mintedSchema.safeParse(data);
    if (!parsed.success)
      throw new AppError('upstream_error', `The installation token answer for installation ${installationId} has no token and expiry`);
    const now = this.deps.clock.now();
    // Never kept past the documented hour, whatever the answer says.
    const expiresAt = Math.min(Date.parse(parsed.data.expires_at), now + installationTokenLifetimeMs);
    this.deps.metrics.count('github_app_token_minted', 1);
    this.deps.logger.info('installation token minted', { installationId, expiresAt: new Date(expiresAt).toISOString() });
    return { token: parsed.data.token, expiresAt, origin: new URL(apiBase).origin };
  }
}

/** What a refused mint means for the connection: the installation is gone, suspended, or the App's key is wrong. */
function mintRefusal(e: unknown, installationId: number): unknown {
  if (!(e instanceof AppError)) return e;
  const status = e.details?.status;
  if (status === 404) {
    return new AppError('reconnect_required', `GitHub App installation ${installationId} no longer exists; connect the App again`, {
      status,
    });
  }
  if (status === 403) {
    return new AppError('forbidden', `GitHub App installation ${installationId} is suspended or refused a token: ${e.message}`, { status });
  }
  if (status === 401) {
    return new AppError('not_configured', 'The code host refused the GitHub App JWT (401): check GITHUB_APP_ID and the private key', {
      status,
    });
  }
  return e;
}
