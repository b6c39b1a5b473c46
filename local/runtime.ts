import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AppContext } from '../shared/app/context';
import { loadConfig, type Config } from '../shared/config/config';
import { DynamoStore } from '../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../shared/adapters/local/embedded-dynamo';
import { openLocalQueues, type LocalQueues } from '../shared/adapters/local/local-queues';
import { createJsonLogger, type Logger } from '../shared/observability/logger';
import { InMemoryMetrics } from '../shared/observability/metrics';
import { systemClock } from '../shared/ports';
import { createRouter } from '../shared/http/router';
import { nodeListener } from '../shared/http/node-http';
import { loadOrCreateGeneratedSecrets, generatedSecretsFile } from './generated-secrets';
import { buildLocalContext } from './local-context';
import { localRoutes } from './routes';
import { localJobs } from './jobs';
import { runLoop, type BackgroundJob } from './background';
import { intakePressure } from './intake-pressure';

export interface LocalRuntime {
  url: string;
  config: Config;
  ctx: AppContext;
  queues: LocalQueues;
  /** The background jobs as this runtime runs them (consumer first); built even when `background` is false. */
  jobs: BackgroundJob[];
  /** Where the generated platform key is kept (absent when PLATFORM_API_KEY came from the environment). */
  keyFile?: string;
  close(): Promise<void>;
}

export interface LocalRuntimeOptions {
  env?: Record<string, string | undefined>;
  /** Where log lines go (stdout by default). */
  write?: (line: string) => void;
  /** Run the queue consumer, poller and sweep in-process (default true). */
  background?: boolean;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolveListen((server.address() as AddressInfo).port));
  });
}

/**
 * The whole product on one port with embedded defaults: DynamoDB served by dynalite from
 * DATA_DIR, a durable file queue with a dead-letter queue, an encrypted secret file, and
 * the consumer, poller and sweep running in-process. Everything survives a restart.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env = { ...(options.env ?? process.env) };
  const dataDir = resolve(env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  env.DATA_DIR = dataDir;

  // Listen first, so that PORT=0 yields a real port for PUBLIC_URL's default.
  let handle: Parameters<typeof nodeListener>[0] = async () => ({ status: 503, body: 'starting' });
  const logger0 = createJsonLogger({ service: 'local', write: options.write, level: 'INFO' });
  // How far behind the HTTP side is: the consumer narrows while it is (jobs.ts).
  const pressure = intakePressure();
  const server = createServer(nodeListener(pressure.count((req) => handle(req)), (e) => logger0.error('request failed', { error: e })));
  const port = await listen(server, Number(env.PORT ?? 3000));
  env.PORT = String(port);

  const generated = env.PLATFORM_API_KEY && env.DISPATCH_SIGNING_SECRET ? undefined : loadOrCreateGeneratedSecrets(dataDir);
  env.PLATFORM_API_KEY ||= generated?.secrets.platformApiKey;
  env.DISPATCH_SIGNING_SECRET ||= generated?.secrets.dispatchSigningSecret;
  const config = loadConfig(env);
  const logger: Logger = createJsonLogger({ service: 'local', write: options.write, level: config.logLevel });

  const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb') });
  const client = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
  await ensureTable(client, config.tableName);
  const store = new DynamoStore(config.tableName, client, systemClock);
  const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: systemClock });
  const ctx = buildLocalContext({ config, store, queue: queues.queue, dataDir, logger, metrics: new InMemoryMetrics() });

  const router = createRouter(localRoutes(ctx, queues), {
    platformApiKey: ctx.platformApiKey,
    onError: (e, req) => logger.error('unhandled error', { method: req.method, path: req.path, error: e }),
  });
  handle = router;

  const stop = new AbortController();
  const jobs = localJobs(ctx, queues, { intakeBusy: pressure.busy });
  const loops = options.background === false ? [] : jobs.map((job) => runLoop(job, stop.signal, logger));

  return {
    url: `http://localhost:${port}`,
    config,
    ctx,
    queues,
    jobs,
    keyFile: env.PLATFORM_API_KEY === generated?.secrets.platformApiKey ? generatedSecretsFile(dataDir) : undefined,
    async close() {
      pressure.stop();
      stop.abort();
      await Promise.allSettled(loops);
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      queues.close();
      client.destroy();
      await dynamo.close();
    },
  };
}
