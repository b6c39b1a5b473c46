import { join } from 'node:path';
import * as z from 'zod';
import type { AppContext } from '../../shared/ports/app-context';
import type { Route } from '../../shared/http/types';
import { worldStateSchema } from './github/github-world';
import { startSandboxGitHub, type SandboxGitHub } from './github/sandbox-github';
import { startSandboxContentSnare, type SandboxContentSnare } from './contentsnare/sandbox-contentsnare';
import { SandboxStateFile } from './state-file';
import { SandboxInbox, inboxPath } from './inbox';
import { DeliveryBound, sandboxDeliveryLimit } from './delivery-bound';
import { oauthServerStateSchema } from './simulated-oauth';
import { demo, demoContentSnareConnection, demoGitHubConnection, rebindIssuedTokens, type DemoConnections } from './demo-connections';

export { demo, type DemoConnections } from './demo-connections';

/**
 * Where `npm run dev` keeps its data unless DATA_DIR is set: its own directory, apart from
 * `npm start`'s `.data`, so the sandbox never sees (let alone re-binds) a real connection.
 */
export const sandboxDataDir = join('.data', 'sandbox');

/** A started sandbox as the runtime shows it: the simulated services' URLs and the demo connections. */
export interface RunningSandbox {
  githubUrl: string;
  contentsnareUrl: string;
  notices?: string[];
  demo: DemoConnections;
}

export interface Sandbox {
  githubUrl: string;
  contentsnareUrl: string;
  /** What the start has to say: a state file that could not be used, and why. */
  notices: string[];
  inbox: SandboxInbox;
  /**
   * The environment the runtime starts with under the sandbox: the simulated back ends
   * replace the real ones; AGENT_RUNTIME_URL points at the inbox unless it is set.
   */
  environment(env: Record<string, string | undefined>, runtimePort: number): Record<string, string>;
  routes(ctx: AppContext): Route[];
  /**
   * The demo connections, made at the first start and found again at the next ones by their
   * `sandboxDemo` mark and their sandbox-made token (re-bound to this run's ports).
   */
  ensureDemoConnections(ctx: AppContext): Promise<DemoConnections>;
  close(): Promise<void>;
}

/** The simulated services' state in the sandbox's data directory, and its bound. */
export const sandboxStateFileName = 'simulated-services.json';
export const sandboxStateMaxBytes = 8 * 1024 * 1024;

const record = z.record(z.string(), z.unknown());
const stateSchema = z.object({
  version: z.literal(1),
  github: z.object({
    userId: z.number().int(),
    nextId: z.number().int(),
    hooks: z.array(
      z.object({
        id: z.number().int(),
        owner: z.string(),
        name: z.string(),
        active: z.boolean(),
        events: z.array(z.string()),
        config: z.object({ url: z.string(), content_type: z.string(), secret: z.string().optional(), insecure_ssl: z.string().optional() }),
      }),
    ),
    world: worldStateSchema,
  }),
  /** The simulated App's user tokens: an App connection made through its install flow still works after a restart. */
  githubApp: z
    .object({
      users: z.array(z.tuple([z.string(), z.string()])),
      refresh: z.array(z.tuple([z.string(), z.object({ login: z.string(), access: z.string() })])),
    })
    .optional(),
  /** The simulated OAuth clients and the tokens they issued: a connection made through them still works after a restart. */
  githubOAuth: oauthServerStateSchema.optional(),
  contentsnareOAuth: oauthServerStateSchema.optional(),
  contentsnare: z.object({
    seq: z.number().int(),
    clients: z.array(record),
    requests: z.array(record),
    companies: z.array(record),
    folders: z.array(record),
    hooks: z
      .array(z.object({ id: z.string(), url: z.string(), enabled: z.boolean(), subscriptions: z.array(z.string()), type: z.string() }))
      .optional(),
  }),
});
type SandboxState = z.infer<typeof stateSchema>;

/** A simulated service's bound on its deliveries; the first one held back is said on stderr. */
function bounded(service: string): DeliveryBound {
  const { limit, windowMs } = sandboxDeliveryLimit;
  return new DeliveryBound(limit, windowMs, Date.now, (b) =>
    process.stderr.write(
      `sandbox: the simulated ${service} sends at most ${b.limit} webhook deliveries a minute; it held one back (${b.held} so far)\n`,
    ),
  );
}

/** The simulated code host's URL changes with its port at each start: the file names it by this mark. */
const githubMark = '{{simulated-github}}';

/**
 * Keeps the simulated services' state in the data directory after every write: `keep` answers
 * undefined when it is kept, or why not, and then puts the last state kept back (the write is
 * undone).
 */
function keeper(file: SandboxStateFile<SandboxState>, loaded: SandboxState | undefined) {
  let github: SandboxGitHub | undefined;
  let snare: SandboxContentSnare | undefined;
  let kept = loaded;
  const tooLarge = `The sandbox keeps at most ${sandboxStateMaxBytes / 1024 / 1024} MiB of simulated data (${file.path}); delete something, or remove the file to start over`;
  return {
    serve(services: { github: SandboxGitHub; snare?: SandboxContentSnare }) {
      github = services.github;
      snare = services.snare;
    },
    keep(): string | undefined {
      // Nothing to keep before both services have started (the first state is kept once they have).
      if (!github || !snare) return undefined;
      const state: SandboxState = {
        version: 1,
        github: github.state(),
        githubApp: github.app.app.userTokenState(),
        githubOAuth: github.oauth.server.state(),
        contentsnareOAuth: snare.oauth.state(),
        contentsnare: snare.service.snapshot(),
      };
      if (file.save(JSON.stringify(state).replaceAll(github.github.url, githubMark))) {
        kept = structuredClone(state);
        return undefined;
      }
      if (kept) {
        github.restore(kept.github);
        snare.service.restore(kept.contentsnare);
      }
      return tooLarge;
    },
  };
}

/**
 * `npm run dev`: the simulated code host (hooks, deliveries, gists, repositories, and every
 * operation the tool steps call, held to the REST description) and the simulated partner
 * API on loopback, with an agent-runtime inbox. What the simulated services hold (the code
 * host's world and hooks, the partner API's clients and requests) is kept in
 * `simulated-services.json` in the data directory after every write, and found again at the
 * next start; what a step does on them is delivered to the hooks subscribed. Nothing here runs
 * under `npm start`.
 */
export async function startSandbox(options: { dataDir: string }): Promise<Sandbox> {
  const file = new SandboxStateFile(join(options.dataDir, sandboxStateFileName), stateSchema, sandboxStateMaxBytes);
  const notices: string[] = [];
  let loaded: SandboxState | undefined;
  const github = await startSandboxGitHub({
    token: demo.githubToken,
    login: demo.githubLogin,
    repository: demo.repository,
    bound: bounded('code host'),
    restore: (url) => {
      const read = file.load((text) => text.replaceAll(githubMark, url));
      if (read.problem) notices.push(read.problem);
      loaded = read.state ?? undefined;
      return loaded;
    },
  });
  const state = keeper(file, loaded);
  const snare = await startSandboxContentSnare({
    token: demo.contentsnareToken,
    account: demo.contentsnareAccount,
    ...(loaded ? { restore: loaded.contentsnare, ...(loaded.contentsnareOAuth ? { oauth: loaded.contentsnareOAuth } : {}) } : {}),
    afterWrite: () => {
      const refused = state.keep();
      return refused ? { status: 422, body: { errors: [refused] } } : undefined;
    },
    bound: bounded('collection service'),
  });
  state.serve({ github, snare });
  github.github.afterWrite = () => {
    const refused = state.keep();
    github.answerBack.settle(refused === undefined);
    return refused ? { status: 422, body: { message: 'Validation Failed', errors: [{ code: 'custom', message: refused }] } } : undefined;
  };
  if (!loaded) {
    const first = state.keep();
    if (first) notices.push(first);
  }
  // Tokens the App and the OAuth clients issue are kept like any other write of the simulated services.
  github.app.app.onUserTokens = () => void state.keep();
  github.oauth.server.onIssued = () => void state.keep();
  snare.oauth.onIssued = () => void state.keep();
  return sandboxOf(github, snare, notices);
}

/** The started sandbox as the runtime takes it. */
function sandboxOf(github: SandboxGitHub, snare: SandboxContentSnare, notices: string[]): Sandbox {
  const inbox = new SandboxInbox();
  return {
    githubUrl: github.github.url,
    contentsnareUrl: snare.service.url,
    notices,
    inbox,
    environment: (env, runtimePort) => ({
      ...github.environment(env, runtimePort),
      ...snare.environment(env),
      AGENT_RUNTIME_URL: env.AGENT_RUNTIME_URL || `http://127.0.0.1:${runtimePort}${inboxPath}`,
    }),
    routes: (ctx) => inbox.routes(ctx),
    async ensureDemoConnections(ctx: AppContext) {
      const made = { github: await demoGitHubConnection(ctx), contentsnare: await demoContentSnareConnection(ctx) };
      await rebindIssuedTokens(ctx, 'github', github.oauth.server.tokens, ctx.config.github.apiUrl);
      await rebindIssuedTokens(ctx, 'contentsnare', snare.oauth.tokens, ctx.config.contentsnare.apiUrl);
      const app = await github.app.ensureDemoConnection(ctx);
      return { ...made, ...(app ? { githubApp: app } : {}) };
    },
    async close() {
      await Promise.allSettled([github.github.close(), snare.service.close()]);
    },
  };
}
