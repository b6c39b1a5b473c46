import { join } from 'node:path';
import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { originOf } from '../../shared/oauth/token-origin';
import type { Connection } from '../../shared/domain/model';
import type { Route } from '../../shared/http/types';
import { defaultAnswers } from './github-answers';
import { SimulatedGitHubWorld } from './github-world';
import { checkAgainstOpenApi } from './openapi-check';
import { SimulatedGitHub } from './simulated-github';
import { startSimulatedContentSnare, type SimulatedContentSnare } from './simulated-contentsnare';
import { defaultMe } from './simulated-contentsnare-api';
import { SandboxInbox, inboxPath } from './inbox';
import { holdSnareExampleRecords } from './snare-example-records';

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
} as const;

export interface DemoConnections {
  github: Connection;
  contentsnare: Connection;
}

/** A started sandbox as the runtime shows it: the simulated services' URLs and the demo connections. */
export interface RunningSandbox {
  githubUrl: string;
  contentsnareUrl: string;
  demo: DemoConnections;
}

export interface Sandbox {
  githubUrl: string;
  contentsnareUrl: string;
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

/**
 * `npm run dev`: the simulated code host (hooks, deliveries, gists, repositories, and every
 * operation the tool steps call, held to the REST description) and the simulated partner
 * API on loopback, with an agent-runtime inbox. Nothing here runs under `npm start`.
 */
export async function startSandbox(): Promise<Sandbox> {
  const github = await SimulatedGitHub.start({ record: false });
  const user = github.addUser(demo.githubToken, demo.githubLogin);
  // One world behind the lists and the single resources: what a list shows can be fetched.
  const world = new SimulatedGitHubWorld(github, demo.githubLogin, user.id);
  world.addRepository(demo.repository.split('/')[1] ?? 'hello-world', { description: 'My first repository on GitHub!' });
  world.addGist('Hello World Examples', {
    'hello_world.rb': 'class HelloWorld\n  def initialize(name)\n    @name = name.capitalize\n  end\nend\n',
  });
  const answers = { ...defaultAnswers(() => github.url), ...world.answers() };
  github.otherwise = (req) => {
    const { problems, match } = checkAgainstOpenApi(req);
    if (!match) return { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };
    // What the real service says of a malformed request: 422 with the reasons.
    if (problems.length > 0)
      return { status: 422, body: { message: 'Validation Failed', errors: problems.map((message) => ({ code: 'invalid', message })) } };
    const answer = answers[match.operationId];
    return answer ? answer(match) : { status: 200, body: {} };
  };
  const contentsnare: SimulatedContentSnare = await startSimulatedContentSnare({ tokens: [demo.contentsnareToken], record: false });
  holdSnareExampleRecords(contentsnare);
  const inbox = new SandboxInbox();

  return {
    githubUrl: github.url,
    contentsnareUrl: contentsnare.url,
    inbox,
    environment(env, runtimePort) {
      return {
        GITHUB_API_URL: github.url,
        CONTENTSNARE_API_URL: contentsnare.url,
        AGENT_RUNTIME_URL: env.AGENT_RUNTIME_URL || `http://127.0.0.1:${runtimePort}${inboxPath}`,
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
          const token = await readStoredToken(ctx.secrets, c.id);
          if (token?.accessToken !== accessToken) continue;
          if (token.origin !== origin) await writeStoredToken(ctx.secrets, c.id, { ...token, origin });
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
          accountLogin: String(defaultMe.full_name),
          authMethod: 'oauth',
          status: 'connected',
          repositories: [],
          sandboxDemo: true,
          createdAt: now,
          updatedAt: now,
        };
        await writeStoredToken(ctx.secrets, cs.id, { accessToken: demo.contentsnareToken, origin: snareOrigin });
        await repo.create(cs);
      }
      return { github: githubConnection, contentsnare: cs };
    },
    async close() {
      await Promise.allSettled([github.close(), contentsnare.close()]);
    },
  };
}
