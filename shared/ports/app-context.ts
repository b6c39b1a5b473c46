import type { Config } from '../config/config';
import type { TokenProvider } from './token-provider';
import type { GitHubAppKeeper } from './github-app-keeper';
import type { Providers } from './provider-contract';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { BlobStore, Clock, Fetch, Queue, SecretStore, Sleep, Store } from './index';

/**
 * Everything a function's core logic needs, built once per cold start by its `deps.ts`
 * (AWS) or by the local runtime (embedded adapters), then passed in.
 */
export interface AppContext {
  config: Config;
  store: Store;
  queue: Queue;
  secrets: SecretStore;
  blobs: BlobStore;
  clock: Clock;
  /** Every wait (rate limits, backoff) goes through it, so a test clock can run them without waiting. */
  sleep: Sleep;
  fetch: Fetch;
  logger: Logger;
  metrics: Metrics;
  /** Access tokens of connections (refreshing where the provider's tokens expire). */
  tokens: TokenProvider;
  /** The providers behind their contract (shared/ports/provider-contract.ts), from the wiring's registry. */
  providers: Providers;
  /** Values that may live in Secrets Manager on AWS, resolved and cached by the wiring. */
  platformApiKey: () => Promise<string>;
  dispatchSigningSecret: () => Promise<string>;
  /** OAuth client secret of a provider, or undefined when it is not configured. */
  oauthClientSecret: (provider: 'github' | 'contentsnare') => Promise<string | undefined>;
  /**
   * A secret of the GitHub App (GITHUB_APP_PRIVATE_KEY, GITHUB_APP_CLIENT_SECRET,
   * GITHUB_APP_WEBHOOK_SECRET or their `*_SECRET_ARN` forms), read once per container; undefined
   * when not configured.
   */
  githubAppSecret: (name: GitHubAppSecretName) => Promise<string | undefined>;
  /**
   * Keeps a GitHub App made by the manifest flow where the runtime reads the App's settings;
   * absent where the role may not write them.
   */
  keepGithubApp?: GitHubAppKeeper;
}

export type GitHubAppSecretName = 'privateKey' | 'clientSecret' | 'webhookSecret';

/**
 * What a tool step may use of the context: its connection's access tokens, configuration,
 * fetch, clock, sleep, logger and metrics. A step is not handed the store, queue, blobs,
 * secrets or the platform's own keys.
 */
export type StepPorts = Pick<AppContext, 'tokens' | 'config' | 'fetch' | 'clock' | 'sleep' | 'logger' | 'metrics'>;
