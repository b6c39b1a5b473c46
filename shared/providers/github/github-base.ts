import type { Config } from '../../config/config';
import type { Connection } from '../../domain/model';

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

export const defaultGitHubTimeoutMs = 15_000;

/** UPSTREAM_TIMEOUT_SECONDS in ms; the default when a hand-made config lacks it. */
export function githubTimeoutMs(seconds: number | undefined): number {
  return typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : defaultGitHubTimeoutMs;
}
