import type { Config } from '../../config/config';
import type { Connection, StoredToken } from '../../domain/model';
import { originOf } from '../../oauth/token-origin';

/**
 * What the code host's callers need besides the Octokit client (its API base, user agent,
 * timeout), apart from octokit.ts so that importing them does not load Octokit: the
 * tool-step function loads Octokit on its first code-host step, not at start-up.
 */

export const githubUserAgent = 'agent-integrations';

/** Enterprise servers: the connection's own API base wins over GITHUB_API_URL. */
export function githubApiBase(connection: Pick<Connection, 'apiBaseUrl'>, config: Pick<Config, 'github'>): string {
  return (connection.apiBaseUrl ?? config.github.apiUrl).replace(/\/+$/, '');
}

/**
 * The origin a stored token is bound to. Tokens stored before origins were recorded carry
 * none; they are bound by how they were made, never by where the connection points now
 * when that could differ from where the token came from:
 * - OAuth tokens: GITHUB_API_URL's origin (the only place the OAuth app issues them for).
 *   A legacy OAuth token on a connection with another `apiBaseUrl` (what a reconnect
 *   could once leave behind) is therefore refused, and must be connected anew.
 * - user-made tokens: the connection's base, where the token was verified when it was
 *   created; `apiBaseUrl` cannot be changed afterwards (PATCH refuses it).
 */
export function boundOrigin(token: Pick<StoredToken, 'origin'>, connection: Connection, config: Pick<Config, 'github'>): string {
  if (token.origin !== undefined) return token.origin;
  if (connection.authMethod === 'oauth') return originOf(config.github.apiUrl);
  return originOf(githubApiBase(connection, config));
}

export const defaultGitHubTimeoutMs = 15_000;

/** UPSTREAM_TIMEOUT_SECONDS in ms; the default when a hand-made config lacks it. */
export function githubTimeoutMs(seconds: number | undefined): number {
  return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : defaultGitHubTimeoutMs;
}
