import type { AppContext } from '../../shared/ports/app-context';
import { loadConfig } from '../../shared/config/config';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { SecretTokenProvider } from '../../shared/oauth/secret-token-provider';
import { writeStoredToken } from '../../shared/store/stored-token';
import type { Connection } from '../../shared/domain/model';
import { createJsonLogger } from '../../shared/observability/logger';
import { InMemoryMetrics } from '../../shared/observability/metrics';
import { systemClock, type Clock, type SecretStore } from '../../shared/ports';
import { testStore } from './dynamo';
import { TestClock } from './test-clock';

export class MemorySecrets implements SecretStore {
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

export interface ToolTestContext {
  ctx: AppContext;
  metrics: InMemoryMetrics;
  secrets: MemorySecrets;
  /** Every log line written, for "no token in any log line" checks. */
  logLines: string[];
  /** Every wait the code asked for (ms), in order: rate-limit waits take no time in tests. */
  sleeps: number[];
  /** Stores a connection and its token; returns the connection. */
  connect(c?: Partial<Connection>, token?: string): Promise<Connection>;
}

/**
 * An AppContext for tool-step tests: a fresh table on the embedded DynamoDB, in-memory
 * secrets with the real token provider, the real fetch (tests point it at loopback fakes).
 */
export async function toolTestContext(env: Record<string, string> = {}, clock: Clock = systemClock): Promise<ToolTestContext> {
  // The table reads item expiry on the same clock as the code under test.
  const { store } = await testStore(clock);
  const config = loadConfig({ PLATFORM_API_KEY: 'platform-key-for-tests-0123456789abcdef', RATE_LIMIT_MAX_WAIT_SECONDS: '5', ...env });
  const secrets = new MemorySecrets();
  const metrics = new InMemoryMetrics();
  const logLines: string[] = [];
  const sleeps: number[] = [];
  const logger = createJsonLogger({ level: 'DEBUG', write: (l) => logLines.push(l) });
  const unused = () => {
    throw new Error('not used by tool steps');
  };
  const ctx: AppContext = {
    config,
    store,
    queue: { sendBatch: async () => unused() },
    secrets,
    blobs: { put: async () => unused(), get: async () => unused(), delete: async () => unused() },
    clock,
    // Waits take no time: each one is recorded (`sleeps`) and moves a TestClock when the test gave one.
    sleep: async (ms) => {
      sleeps.push(ms);
      if (clock instanceof TestClock) clock.advance(ms);
    },
    fetch: globalThis.fetch,
    logger,
    metrics,
    tokens: new SecretTokenProvider(secrets),
    platformApiKey: async () => 'platform-key-for-tests-0123456789abcdef',
    dispatchSigningSecret: async () => 'dispatch-secret-for-tests-0123456789abcdef',
    oauthClientSecret: async () => undefined,
  };
  const repo = new ConnectionRepo(store);
  return {
    ctx,
    metrics,
    secrets,
    logLines,
    sleeps,
    connect: async (c = {}, token = 'ghp_testtoken000000000000000000000000000') => {
      const now = new Date().toISOString();
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
      await repo.create(connection);
      await writeStoredToken(secrets, connection.id, { accessToken: token });
      return connection;
    },
  };
}
