import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLocalQueues, type LocalQueues } from '../../shared/adapters/local/local-queues';
import type { AppContext } from '../../shared/ports/app-context';
import { providerRegistry } from '../../shared/wiring/providers';
import { loadConfig } from '../../shared/config/config';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { SecretTokenProvider } from '../../shared/oauth/secret-token-provider';
import { writeStoredToken } from '../../shared/store/stored-token';
import type { Connection } from '../../shared/domain/model';
import type { Config } from '../../shared/config/config';
import { createJsonLogger } from '../../shared/observability/logger';
import { InMemoryMetrics } from '../../shared/observability/metrics';
import type { BlobStore, Clock, InboundMessage, Queue, SecretStore, Sleep, Store } from '../../shared/ports';
import { TestClock, testStore } from './dynamo';

export class MemorySecretStore implements SecretStore {
  readonly values = new Map<string, string>();
  async get(name: string) {
    return this.values.get(name);
  }
  async put(name: string, value: string) {
    this.values.set(name, value);
  }
  async delete(name: string) {
    this.values.delete(name);
  }
}

export class MemoryBlobStore implements BlobStore {
  readonly values = new Map<string, Buffer>();
  async put(key: string, body: Buffer) {
    this.values.set(key, Buffer.from(body));
  }
  async get(key: string) {
    const v = this.values.get(key);
    return v ? Buffer.from(v) : undefined;
  }
  async delete(key: string) {
    this.values.delete(key);
  }
}

export const testPlatformKey = 'platform-key-for-tests-0123456789abcdef';
export const testSigningSecret = 'dispatch-secret-for-tests-0123456789abcdef';

/** What a test decides of its context; the rest is the same for every test. */
export interface TestContextParts {
  config: Config;
  store: Store;
  clock: Clock;
  sleep: Sleep;
  secrets: MemorySecretStore;
  metrics: InMemoryMetrics;
  /** Every log line is pushed here, for "no token in any log line" checks. */
  logLines: string[];
  queue?: Queue;
  blobs?: BlobStore;
}

const notInThisTest = () => {
  throw new Error('not part of this test context');
};

/**
 * The one AppContext of the tests: the real token provider over the given secrets, the real
 * fetch (tests point it at loopback fakes), a capturing logger, the test's platform key and
 * signing secret. A queue or blob store the test did not give throws when used.
 */
export function testAppContext(parts: TestContextParts): AppContext {
  return {
    config: parts.config,
    store: parts.store,
    queue: parts.queue ?? { sendBatch: async () => notInThisTest() },
    secrets: parts.secrets,
    blobs: parts.blobs ?? { put: async () => notInThisTest(), get: async () => notInThisTest(), delete: async () => notInThisTest() },
    clock: parts.clock,
    sleep: parts.sleep,
    fetch: globalThis.fetch,
    providers: providerRegistry,
    logger: createJsonLogger({ level: 'DEBUG', write: (l) => parts.logLines.push(l) }),
    metrics: parts.metrics,
    tokens: new SecretTokenProvider(parts.secrets),
    platformApiKey: async () => testPlatformKey,
    dispatchSigningSecret: async () => testSigningSecret,
    oauthClientSecret: async () => undefined,
    githubAppSecret: async (name) => parts.config.github.app?.[name],
  };
}

/** Stores a connection (a token connection of octocat unless `c` says otherwise) and its token. */
export async function storeTestConnection(
  ctx: Pick<AppContext, 'store' | 'secrets' | 'clock'>,
  c: Partial<Connection> = {},
  token = 'ghp_testtoken000000000000000000000000000',
): Promise<Connection> {
  const now = new Date(ctx.clock.now()).toISOString();
  const connection: Connection = {
    id: ConnectionRepo.newId(),
    provider: 'github',
    accountLogin: 'octocat',
    authMethod: 'token',
    status: 'connected',
    repositories: [],
    createdAt: now,
    updatedAt: now,
    ...c,
  };
  await writeStoredToken(ctx.secrets, connection, { accessToken: token });
  await new ConnectionRepo(ctx.store).create(connection);
  return connection;
}

export interface TestContext {
  ctx: AppContext;
  clock: TestClock;
  /** The dispatch queue (the local durable queue in a temp dir) and its dead-letter queue. */
  queues: LocalQueues;
  secrets: MemorySecretStore;
  blobs: MemoryBlobStore;
  metrics: InMemoryMetrics;
  /** Every log line written, for "no token in any log line" checks. */
  logLines: string[];
  /** Receives (and hides for 30 s) every visible message. */
  receiveAll(max?: number): Promise<InboundMessage[]>;
  /** Stores a connection and its token; returns the connection. */
  connect(c?: Partial<Connection>, token?: string): Promise<Connection>;
  close(): void;
}

/**
 * A full AppContext for integration tests: a fresh table on the embedded DynamoDB, the
 * local durable queue (with DLQ) in a temp dir, in-memory secrets and blobs, a TestClock
 * shared by store and queue, the real fetch (point `env` URLs at loopback fakes), a
 * capturing logger and in-memory metrics. `env` goes through the real `loadConfig`.
 */
export async function testContext(
  env: Record<string, string | undefined> = {},
  options: { maxReceives?: number } = {},
): Promise<TestContext> {
  const clock = new TestClock(Date.now());
  const { store } = await testStore(clock);
  const dir = mkdtempSync(join(tmpdir(), 'ctx-'));
  const queues = openLocalQueues({ dir, name: 'dispatch', clock, maxReceives: options.maxReceives ?? 5 });
  const config = loadConfig({
    PLATFORM_API_KEY: testPlatformKey,
    DISPATCH_SIGNING_SECRET: testSigningSecret,
    PUBLIC_URL: 'http://127.0.0.1:9',
    ...env,
  });
  const secrets = new MemorySecretStore();
  const blobs = new MemoryBlobStore();
  const metrics = new InMemoryMetrics();
  const logLines: string[] = [];
  const ctx = testAppContext({ config, store, clock, sleep: clock.sleep, secrets, metrics, logLines, queue: queues.queue, blobs });
  return {
    ctx,
    clock,
    queues,
    secrets,
    blobs,
    metrics,
    logLines,
    receiveAll: (max = 100) => queues.queue.receive(max, 30),
    connect: (c, token) => storeTestConnection(ctx, c, token),
    close: () => {
      queues.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
