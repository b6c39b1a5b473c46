import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AppContext } from '../shared/ports/app-context';
import { loadConfig, type Config } from '../shared/config/config';
import { DynamoStore } from '../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../shared/adapters/local/embedded-dynamo';
import { ExpiredRows } from '../shared/adapters/local/expired-rows';
import { openLocalQueues, type LocalQueues } from '../shared/adapters/local/local-queues';
import { createJsonLogger, type Logger } from '../shared/observability/logger';
import { InMemoryMetrics } from '../shared/observability/metrics';
import { systemClock } from '../shared/ports';
import { resolveScopedKey } from '../shared/keys/scoped-keys';
import { createRouter, type Router } from '../shared/http/router';
import { nodeListener } from '../shared/http/node-http';
import type { Admission, HttpRequest, RequestHead } from '../shared/http/types';
import { defaultServerLimits, limitServer, listenHost, serverOptions, urlHost, type ServerLimits } from './server-limits';
import { loadOrCreateGeneratedSecrets, generatedSecretsFile } from './generated-secrets';
import { keptGithubAppEnvironment } from '../shared/adapters/local/kept-github-app';
import { buildLocalContext } from '../shared/wiring/local-context';
import { localRoutes } from './routes';
import { RecentEvents } from './console/recent-events';
import { localCircuit, localJobs } from './jobs';
import { maxReceiveCount } from '../shared/dispatch/redrive-policy';
import { runLoop, type BackgroundJob } from './background';
import { intakePressure } from './intake-pressure';
import { secureDataDir } from './data-dir';
import { acquireDataDirLock } from './data-dir-lock';
import { listenError, parsePort } from './startup-checks';
import { runWebhookProxy } from './webhook-proxy';
import { sandboxDataDir, startSandbox, type RunningSandbox, type Sandbox } from './sandbox/sandbox';
import { stdoutLines } from './stdout-lines';

export interface LocalRuntime {
  url: string;
  config: Config;
  ctx: AppContext;
  queues: LocalQueues;
  /** The background jobs as this runtime runs them (consumer first); built even when `background` is false. */
  jobs: BackgroundJob[];
  /** Where the generated platform key is kept (absent when PLATFORM_API_KEY came from the environment). */
  keyFile?: string;
  /** Under `npm run dev`: the simulated back ends, the demo connections and the inbox. */
  sandbox?: RunningSandbox;
  close(): Promise<void>;
}

export interface LocalRuntimeOptions {
  env?: Record<string, string | undefined>;
  /** Where log lines go (stdout by default). */
  write?: (line: string) => void;
  /** Run the queue consumer, poller and sweep in-process (default true). */
  background?: boolean;
  /** The HTTP server's limits (server-limits.ts); tests shorten the timeouts. */
  limits?: Partial<ServerLimits>;
  /** `npm run dev`: start the simulated back ends, demo connections and inbox (local/sandbox/). */
  sandbox?: boolean;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolveListen, reject) => {
    server.once('error', (e) => reject(listenError(e, port, host)));
    server.listen(port, host, () => resolveListen((server.address() as AddressInfo).port));
  });
}

/** The HTTP side, listening before anything else is up: it answers 503 until `serve` gives it the router. */
interface EarlyServer {
  server: Server;
  port: number;
  host: string;
  /** From now on, requests go to `router`, counted in flight by `pressure` while their route handles them. */
  serve(router: Router, pressure: ReturnType<typeof intakePressure>): void;
}

/** Listen first, so that PORT=0 yields a real port for PUBLIC_URL's default. */
async function listenFirst(
  options: LocalRuntimeOptions,
  env: Record<string, string | undefined>,
  wantedPort: number,
): Promise<EarlyServer> {
  const starting = { status: 503, body: 'starting' };
  let handle: Router = Object.assign(async () => starting, {
    admit: async (): Promise<Admission> => ({ kind: 'answer', response: starting }),
  });
  const logger0 = createJsonLogger({ service: 'local', write: options.write ?? stdoutLines, level: 'INFO' });
  const listener = nodeListener(
    Object.assign((req: HttpRequest) => handle(req), { admit: (head: RequestHead) => handle.admit(head) }),
    (e) => logger0.error('request failed', { error: e }),
    { maxBufferedBytes: options.limits?.maxBufferedBytes ?? defaultServerLimits.maxBufferedBytes },
  );
  const host = listenHost(env);
  const server = limitServer(createServer(serverOptions(options.limits), listener), options.limits);
  // Answer `Expect: 100-continue` only once the route, key and declared size are admitted.
  server.on('checkContinue', (req, res) => listener(req, res, true));
  const port = await listen(server, wantedPort, host);
  const serve = (router: Router, pressure: ReturnType<typeof intakePressure>) => {
    // Count requests in flight while their route handles them (after the body is read).
    handle = Object.assign((req: HttpRequest) => pressure.count(router)(req), {
      admit: async (head: RequestHead): Promise<Admission> => {
        const admission = await router.admit(head);
        return admission.kind === 'answer' ? admission : { ...admission, run: pressure.count(admission.run) };
      },
    });
  };
  return { server, port, host, serve };
}

/** The embedded database, the file queues and the context over them; the console watches what is queued. */
async function openState(dataDir: string, config: Config, logger: Logger) {
  const dynamo = await startEmbeddedDynamo({ path: join(dataDir, 'dynamodb') });
  const client = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
  await ensureTable(client, config.tableName);
  const store = new DynamoStore(config.tableName, client, systemClock);
  const queues = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'dispatch', clock: systemClock, maxReceives: maxReceiveCount });
  const ctx = buildLocalContext({ config, store, queue: queues.queue, dataDir, logger, metrics: new InMemoryMetrics() });
  // The console's recent events: every event put on the queue, as it is put there.
  const recent = new RecentEvents(systemClock, ctx.blobs);
  ctx.queue = recent.watch(ctx.queue);
  // The poller's work items (planned on its timer, read by in-process workers), as SQS holds them on AWS.
  const pollWork = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'poll-work', clock: systemClock, maxReceives: 3 });
  // The sweep's, one per hook, likewise.
  const sweepWork = openLocalQueues({ dir: join(dataDir, 'queues'), name: 'sweep-work', clock: systemClock, maxReceives: 3 });
  const expiredRows = new ExpiredRows(client, config.tableName, systemClock);
  return { dynamo, client, queues, ctx, recent, pollWork, sweepWork, expiredRows };
}

/** What a running sandbox shows its caller: its services' URLs, the demo connections, its notices. */
function sandboxView(sandbox: Sandbox, demo: RunningSandbox['demo']): RunningSandbox {
  return { githubUrl: sandbox.githubUrl, contentsnareUrl: sandbox.contentsnareUrl, demo, notices: sandbox.notices };
}

/**
 * What the environment leaves out, filled in: the sandbox's services, the App the manifest flow
 * kept here (unless the environment names an App of its own), the generated platform key and
 * signing secret; the generated ones are answered so the banner can name their file.
 */
function completeEnvironment(env: NodeJS.ProcessEnv, dataDir: string, port: number, sandbox: Sandbox | undefined) {
  if (sandbox) Object.assign(env, sandbox.environment(env, port));
  if (!env.GITHUB_APP_ID && !env.GITHUB_APP_SLUG && !env.GITHUB_APP_CLIENT_ID) Object.assign(env, keptGithubAppEnvironment(dataDir));
  const generated = env.PLATFORM_API_KEY && env.DISPATCH_SIGNING_SECRET ? undefined : loadOrCreateGeneratedSecrets(dataDir);
  env.PLATFORM_API_KEY ||= generated?.secrets.platformApiKey;
  env.DISPATCH_SIGNING_SECRET ||= generated?.secrets.dispatchSigningSecret;
  return generated;
}

/** DynamoDB's time to live for the embedded table: one page a round, at a pace that leaves the table to the product. */
function expiredRowsJob(rows: ExpiredRows): BackgroundJob {
  return {
    name: 'expired-rows',
    idleMs: 2_000,
    runOnce: async () => {
      await rows.sweepPage();
      return false;
    },
  };
}

/** The consumer, poller and sweep (unless `background` is false), and the webhook relay when WEBHOOK_PROXY_URL is set. */
function startLoops(
  ctx: AppContext,
  queues: LocalQueues,
  run: {
    background: boolean;
    pollWork: LocalQueues;
    sweepWork: LocalQueues;
    pressure: ReturnType<typeof intakePressure>;
    circuit: ReturnType<typeof localCircuit>;
    ownUrl: string;
    expiredRows: ExpiredRows;
  },
  signal: AbortSignal,
) {
  const { config, logger } = ctx;
  const relay = { listening: false };
  const jobs = [
    ...localJobs(ctx, queues, {
      pollWork: run.pollWork,
      sweepWork: run.sweepWork,
      intakeBusy: run.pressure.busy,
      circuit: run.circuit,
      ...(config.webhookProxyUrl ? { relayListening: () => relay.listening } : {}),
    }),
    expiredRowsJob(run.expiredRows),
  ];
  const loops = run.background ? jobs.map((job) => runLoop(job, signal, logger)) : [];
  // WEBHOOK_PROXY_URL: real deliveries from a relay channel, replayed into this runtime's intake.
  if (config.webhookProxyUrl)
    loops.push(
      runWebhookProxy({
        source: config.webhookProxyUrl,
        target: run.ownUrl,
        logger,
        signal,
        onListening: (listening) => {
          relay.listening = listening;
        },
      }),
    );
  return { jobs, loops };
}

/** The sandbox (`npm run dev`) once the port is known; a failure to start it frees the port and the data dir. */
async function sandboxOn(options: LocalRuntimeOptions, dataDir: string, release: () => void): Promise<Sandbox | undefined> {
  try {
    return options.sandbox ? await startSandbox({ dataDir }) : undefined;
  } catch (e) {
    release();
    throw e;
  }
}

/**
 * The whole product on one port with embedded defaults: DynamoDB served by dynalite from
 * DATA_DIR, a durable file queue with a dead-letter queue, an encrypted secret file, and
 * the consumer, poller and sweep running in-process. Everything survives a restart.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env = { ...(options.env ?? process.env) };
  const wantedPort = parsePort(env.PORT);
  // The sandbox keeps its own data: a real connection of `npm start` is never in its reach.
  const dataDir = resolve(env.DATA_DIR ?? (options.sandbox ? sandboxDataDir : '.data'));
  secureDataDir(dataDir);
  // One runtime per data dir: a second one would otherwise die inside the embedded database.
  const lock = acquireDataDirLock(dataDir);
  env.DATA_DIR = dataDir;

  const { server, port, host, serve } = await listenFirst(options, env, wantedPort).catch((e: unknown) => {
    lock.release();
    throw e;
  });
  env.PORT = String(port);
  const sandbox = await sandboxOn(options, dataDir, () => {
    server.close();
    lock.release();
  });
  const generated = completeEnvironment(env, dataDir, port, sandbox);
  const config = loadConfig(env);
  const logger: Logger = createJsonLogger({ service: 'local', write: options.write ?? stdoutLines, level: config.logLevel });
  const { dynamo, client, queues, ctx, recent, pollWork, sweepWork, expiredRows } = await openState(dataDir, config, logger);

  // How far behind the HTTP side is: the consumer narrows while it is (jobs.ts).
  const pressure = intakePressure();
  // The consumer's circuit over the agent runtime: the console shows its state.
  const circuit = localCircuit(ctx);
  const router = createRouter([...localRoutes(ctx, queues, recent, circuit), ...(sandbox?.routes(ctx) ?? [])], {
    platformApiKey: ctx.platformApiKey,
    scopedKey: (token) => resolveScopedKey(ctx, token),
    onError: (e, req) => logger.error('unhandled error', { method: req.method, path: req.path, error: e }),
  });
  serve(router, pressure);

  const demo = sandbox ? await sandbox.ensureDemoConnections(ctx) : undefined;
  const stop = new AbortController();
  const ownUrl = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : urlHost(host)}:${port}`;
  const background = options.background !== false;
  const loopsOf = { background, pollWork, sweepWork, pressure, circuit, ownUrl, expiredRows };
  const { jobs, loops } = startLoops(ctx, queues, loopsOf, stop.signal);

  return {
    url: `http://${urlHost(host)}:${port}`,
    config,
    ctx,
    queues,
    jobs,
    keyFile: env.PLATFORM_API_KEY === generated?.secrets.platformApiKey ? generatedSecretsFile(dataDir) : undefined,
    sandbox: sandbox && demo ? sandboxView(sandbox, demo) : undefined,
    async close() {
      pressure.stop();
      stop.abort();
      // The port is freed first: a shutdown that then waits on a loop still lets the next start listen.
      const closed = new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await Promise.allSettled(loops);
      await closed;
      await sandbox?.close();
      queues.close();
      pollWork.close();
      sweepWork.close();
      client.destroy();
      await dynamo.close();
      lock.release();
    },
  };
}
