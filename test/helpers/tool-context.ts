import type { AppContext } from '../../shared/ports/app-context';
import { loadConfig } from '../../shared/config/config';
import type { Connection } from '../../shared/domain/model';
import { InMemoryMetrics } from '../../shared/observability/metrics';
import { systemClock, type Clock } from '../../shared/ports';
import { testStore } from './dynamo';
import { TestClock } from './test-clock';
import { MemorySecretStore, storeTestConnection, testAppContext, testPlatformKey } from './test-context';

export interface ToolTestContext {
  ctx: AppContext;
  metrics: InMemoryMetrics;
  secrets: MemorySecretStore;
  /** Every log line written, for "no token in any log line" checks. */
  logLines: string[];
  /** Every wait the code asked for (ms), in order: rate-limit waits take no time in tests. */
  sleeps: number[];
  /** Stores a connection and its token; returns the connection. */
  connect(c?: Partial<Connection>, token?: string): Promise<Connection>;
}

/**
 * The test AppContext (testAppContext) for tool-step tests: a fresh table on the embedded
 * DynamoDB, in-memory secrets with the real token provider, no queue or blob store (steps
 * use neither), and waits that take no time.
 */
export async function toolTestContext(env: Record<string, string> = {}, clock: Clock = systemClock): Promise<ToolTestContext> {
  // The table reads item expiry on the same clock as the code under test.
  const { store } = await testStore(clock);
  const config = loadConfig({ PLATFORM_API_KEY: testPlatformKey, RATE_LIMIT_MAX_WAIT_SECONDS: '5', ...env });
  const secrets = new MemorySecretStore();
  const metrics = new InMemoryMetrics();
  const logLines: string[] = [];
  const sleeps: number[] = [];
  // Waits take no time: each one is recorded (`sleeps`) and moves a TestClock when the test gave one.
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    if (clock instanceof TestClock) clock.advance(ms);
  };
  const ctx = testAppContext({ config, store, clock, sleep, secrets, metrics, logLines });
  return { ctx, metrics, secrets, logLines, sleeps, connect: (c, token) => storeTestConnection(ctx, c, token) };
}
