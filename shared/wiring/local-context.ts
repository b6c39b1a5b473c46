import { join } from 'node:path';
import type { AppContext, GitHubAppSecretName } from '../ports/app-context';
import type { Provider } from '../domain/model';
import { providerRegistry } from './providers';
import type { Config } from '../config/config';
import { EncryptedSecretStore } from '../adapters/local/encrypted-secret-store';
import { FileBlobStore } from '../adapters/local/file-blob-store';
import { localGithubAppKeeper } from '../adapters/local/kept-github-app';
import { RefreshingTokenProvider } from '../oauth/refreshing-token-provider';
import { AppAwareTokenProvider } from '../providers/github/app/app-token-provider';
import { InstallationTokens } from '../providers/github/app/installation-tokens';
import { outboundFetch } from '../http/guarded-fetch';
import type { Logger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import { realSleep, systemClock, type Queue, type Store } from '../ports';
import { movingLegacyTokenNames } from '../store/legacy-token-names';

export interface LocalContextInput {
  config: Config;
  store: Store;
  queue: Queue;
  dataDir: string;
  logger: Logger;
  metrics: Metrics;
}

/** AppContext on the embedded adapters: what the AWS wiring builds from the stack, from DATA_DIR instead. */
export function buildLocalContext(input: LocalContextInput): AppContext {
  const { config } = input;
  // A data dir from before the providers' token areas keeps the collection service's tokens under their old name.
  const secretStore = EncryptedSecretStore.open({ dir: join(input.dataDir, 'secrets') });
  const secrets = movingLegacyTokenNames(secretStore);
  const required = (value: string | undefined, name: string) => async () => {
    if (!value) throw new Error(`${name} is not set`);
    return value;
  };
  const base = {
    config,
    store: input.store,
    queue: input.queue,
    secrets,
    blobs: new FileBlobStore(join(input.dataDir, 'blobs')),
    clock: systemClock,
    sleep: realSleep,
    // Caller-chosen hosts checked by resolved address at connect time; loopback allowed locally.
    fetch: outboundFetch(config, true),
    logger: input.logger,
    metrics: input.metrics,
    platformApiKey: required(config.platformApiKey, 'PLATFORM_API_KEY'),
    dispatchSigningSecret: required(config.dispatchSigningSecret, 'DISPATCH_SIGNING_SECRET'),
    oauthClientSecret: async (provider: Provider) => config[provider].clientSecret,
    githubAppSecret: async (name: GitHubAppSecretName) => config.github.app?.[name],
    keepGithubApp: localGithubAppKeeper(input.dataDir, config.github),
    providers: providerRegistry,
  };
  // The installation tokens' rows are sealed with the secret store's own key, as KMS seals them on AWS.
  const installations = new InstallationTokens({ ...base, sealer: secretStore.tokenSealer() });
  return { ...base, tokens: new AppAwareTokenProvider(new RefreshingTokenProvider(base), installations) };
}
