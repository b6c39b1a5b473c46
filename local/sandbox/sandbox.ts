import { join } from 'node:path';
import * as z from 'zod';
import { present } from '../../shared/domain/present';
import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { originOf } from '../../shared/oauth/token-origin';
import type { Connection } from '../../shared/domain/model';
import type { Route } from '../../shared/http/types';
import { defaultAnswers } from './github/github-answers';
import { SimulatedLoopWorld } from './github/github-world-loop';
import { SimulatedGitHubWorld, worldStateSchema } from './github/github-world';
import { SandboxStateFile } from './state-file';
import { checkAgainstOpenApi } from './github/openapi-check';
import { SimulatedGitHub } from './github/simulated-github';
import { startSimulatedContentSnare, type SimulatedContentSnare } from './contentsnare/simulated-contentsnare';
import { SandboxInbox, inboxPath } from './inbox';
import { playGitHubApp } from './github/sandbox-app';
import { holdSnareExampleRecords } from './contentsnare/snare-example-records';
import { GitHubAnswerBack } from './github/answer-back';
import { DeliveryBound, sandboxDeliveryLimit } from './delivery-bound';

/**
 * Where `npm run dev` keeps its data unless DATA_DIR is set: its own directory, apart from
 * `npm start`'s `.data`, so the sandbox never sees (let alone re-binds) a real connection.
 */
export const sandboxDataDir = join('.data', 'sandbox');

/** The demo account of the simulated code host, and the repository the examples use. */
export const demo = {
  githubToken: 'sandbox-demo-github-token',
  githubLogin: 'octocat',
  repository: 'octocat/hello-world',
  contentsnareToken: 'sandbox-demo-contentsnare-token',
  githubLabel: 'Sandbox demo (simulated GitHub)',
  contentsnareLabel: 'Sandbox demo (simulated Content Snare)',
  /** The demo account of the simulated collection service: the admin of its seeded team. */
  contentsnareAccount: 'Olivia Owner',
} as const;

export interface DemoConnections {
  github: Connection;
  contentsnare: Connection;
  /** Acting through the simulated GitHub App (absent when the environment names an App of its own). */
  githubApp?: Connection;
}

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
 * `npm run dev`: the simulated code host (hooks, deliveries, gists, repositories, and every
 * operation the tool steps call, held to the REST description) and the simulated partner
 * API on loopback, with an agent-runtime inbox. What the simulated services hold (the code
 * host's world and hooks, the partner API's clients and requests) is kept in
 * `simulated-services.json` in the data directory after every write, and found again at the
 * next start. Nothing here runs under `npm start`.
 */
export async function startSandbox(options: { dataDir: string }): Promise<Sandbox> {
  const github = await SimulatedGitHub.start({ record: false });
  const file = new SandboxStateFile(join(options.dataDir, sandboxStateFileName), stateSchema, sandboxStateMaxBytes);
  const loaded = file.load((text) => text.replaceAll(githubMark, github.url));
  const notices = loaded.problem ? [loaded.problem] : [];
  const user = github.addUser(demo.githubToken, demo.githubLogin, loaded.state?.github.userId);
  // One world behind the lists and the single resources: what a list shows can be fetched.
  const world = new SimulatedGitHubWorld(github, demo.githubLogin, user.id);
  if (loaded.state) {
    world.restore(loaded.state.github.world);
    github.restoreHooks(loaded.state.github);
  } else {
    world.addRepository(demo.repository.split('/')[1] ?? 'hello-world', { description: 'My first repository on GitHub!' });
    world.addGist('Hello World Examples', {
      'hello_world.rb': 'class HelloWorld\n  def initialize(name)\n    @name = name.capitalize\n  end\nend\n',
    });
  }
  github.hookOwnerExists = (owner) => world.hookOwnerExists(owner);
  github.profile = (account) => (account.id === user.id ? world.profile() : undefined);
  const answers = { ...defaultAnswers(() => github.url), ...world.answers() };
  const loop = new SimulatedLoopWorld(world, () => github.url, demo.githubLogin);
  Object.assign(answers, loop.answers(answers.graphql));
  const [demoOwner = '', demoRepo = ''] = demo.repository.split('/');
  loop.addDiscussion(demoOwner, demoRepo, { number: 1, title: 'Welcome', body: 'Say hello here.' });
  github.otherwise = (req) => {
    const { problems, match } = checkAgainstOpenApi(req);
    if (!match) return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
    // What the real service says of a malformed request: 422 with the reasons.
    if (problems.length > 0)
      return { status: 422, body: { message: 'Validation Failed', errors: problems.map((message) => ({ code: 'invalid', message })) } };
    // A repository the world does not hold is 404, as the code host answers (for one it hides, too).
    const { owner, repo } = match.params;
    if (owner !== undefined && repo !== undefined && !world.hasRepository(owner, repo))
      return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
    const answer = answers[match.operationId];
    return answer ? answerBack.answer(match, answer) : { status: 200, body: {} };
  };

  const githubApp = playGitHubApp(github, user);
  const announcing = {
    branchHeads: (owner: string, repo: string) => world.branchHeads(owner, repo),
    commit: (owner: string, repo: string, sha: string) => world.commit(owner, repo, sha),
    answers,
  };
  const answerBack = new GitHubAnswerBack(github, announcing, bounded('code host'), () => githubApp.webhook());
  // Job logs are fetched without the token, from the signed URL the log request answered.
  const app = github.before;
  github.before = (req) => loop.serveLog(req) ?? app?.(req);
  if (loaded.state?.githubApp) githubApp.app.restoreUserTokens(loaded.state.githubApp);
  let contentsnare: SimulatedContentSnare | undefined;
  const snapshot = (): SandboxState => ({
    version: 1,
    github: { userId: user.id, ...github.hookState(), world: world.snapshot() },
    githubApp: githubApp.app.userTokenState(),
    contentsnare: present(contentsnare, 'the simulated Content Snare').snapshot(),
  });
  let kept = loaded.state ?? undefined;
  const tooLarge = `The sandbox keeps at most ${sandboxStateMaxBytes / 1024 / 1024} MiB of simulated data (${file.path}); delete something, or remove the file to start over`;
  /** Keeps the state after a write; a state over the bound is not kept, and the write is undone. */
  const keep = (): string | undefined => {
    const state = snapshot();
    if (file.save(JSON.stringify(state).replaceAll(github.url, githubMark))) {
      kept = structuredClone(state);
      return undefined;
    }
    if (kept) {
      world.restore(kept.github.world);
      github.restoreHooks(kept.github);
      contentsnare?.restore(kept.contentsnare);
    }
    return tooLarge;
  };
  github.afterWrite = () => {
    const refused = keep();
    answerBack.settle(refused === undefined);
    return refused ? { status: 422, body: { message: 'Validation Failed', errors: [{ code: 'custom', message: refused }] } } : undefined;
  };
  contentsnare = await startSimulatedContentSnare({
    tokens: [demo.contentsnareToken],
    record: false,
    me: { full_name: demo.contentsnareAccount },
    ...(loaded.state ? { restore: loaded.state.contentsnare } : {}),
    afterWrite: () => {
      const refused = keep();
      return refused ? { status: 422, body: { errors: [refused] } } : undefined;
    },
  });
  holdSnareExampleRecords(contentsnare);
  const snareBound = bounded('collection service');
  const deliverSnare = contentsnare.webhooks.deliver;
  contentsnare.webhooks.deliver = async (url, body) => (snareBound.take() ? deliverSnare(url, body) : 0);
  if (!loaded.state) {
    const first = keep();
    if (first) notices.push(first);
  }
  // Tokens the App issues are kept like any other write of the simulated services.
  githubApp.app.onUserTokens = () => void keep();
  const inbox = new SandboxInbox();

  const snare = contentsnare;
  return {
    githubUrl: github.url,
    contentsnareUrl: snare.url,
    notices,
    inbox,
    environment(env, runtimePort) {
      return {
        GITHUB_API_URL: github.url,
        CONTENTSNARE_API_URL: contentsnare.url,
        AGENT_RUNTIME_URL: env.AGENT_RUNTIME_URL || `http://127.0.0.1:${runtimePort}${inboxPath}`,
        ...githubApp.environment(env, runtimePort),
      };
    },
    routes: (ctx) => inbox.routes(ctx),
    async ensureDemoConnections(ctx) {
      const repo = new ConnectionRepo(ctx.store);
      const all = await repo.list();
      /**
       * A demo connection of this sandbox: marked `sandboxDemo` (which no API sets) and still
       * holding the token the sandbox made. Its token is re-bound to this run's port; nothing
       * else is touched, whatever its label (a label is anyone's to set).
       */
      const adopt = async (provider: Connection['provider'], accessToken: string, origin: string) => {
        for (const c of all) {
          if (c.sandboxDemo !== true || c.provider !== provider) continue;
          const token = await readStoredToken(ctx.secrets, c);
          if (token?.accessToken !== accessToken) continue;
          if (token.origin !== origin) await writeStoredToken(ctx.secrets, c, { ...token, origin });
          return c;
        }
        return undefined;
      };
      const marked = async (c: Connection) => (await repo.update(c.id, (x) => ({ ...x, sandboxDemo: true }))) ?? c;
      const githubConnection =
        (await adopt('github', demo.githubToken, originOf(ctx.config.github.apiUrl))) ??
        (await marked(await createTokenConnection(ctx, { provider: 'github', token: demo.githubToken, label: demo.githubLabel })));
      const snareOrigin = originOf(ctx.config.contentsnare.apiUrl);
      let cs = await adopt('contentsnare', demo.contentsnareToken, snareOrigin);
      if (!cs) {
        // The collection service connects by OAuth only: the demo connection is what its callback would store.
        const now = new Date(ctx.clock.now()).toISOString();
        cs = {
          id: ConnectionRepo.newId(),
          provider: 'contentsnare',
          label: demo.contentsnareLabel,
          accountLogin: demo.contentsnareAccount,
          authMethod: 'oauth',
          status: 'connected',
          repositories: [],
          sandboxDemo: true,
          createdAt: now,
          updatedAt: now,
        };
        await writeStoredToken(ctx.secrets, cs, { accessToken: demo.contentsnareToken, origin: snareOrigin });
        await repo.create(cs);
      }
      const app = await githubApp.ensureDemoConnection(ctx);
      return { github: githubConnection, contentsnare: cs, ...(app ? { githubApp: app } : {}) };
    },
    async close() {
      await Promise.allSettled([github.close(), snare.close()]);
    },
  };
}
