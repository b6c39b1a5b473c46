import type { AppContext } from '../../shared/ports/app-context';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { createTokenConnection } from '../../shared/connections/create-token-connection';
import { readStoredToken, writeStoredToken } from '../../shared/store/stored-token';
import { originOf } from '../../shared/oauth/token-origin';
import type { Connection } from '../../shared/domain/model';
import type { Route } from '../../shared/http/types';
import { defaultAnswers } from './github-answers';
import { checkAgainstOpenApi } from './openapi-check';
import { SimulatedGitHub } from './simulated-github';
import { startSimulatedContentSnare, type SimulatedContentSnare } from './simulated-contentsnare';
import { defaultMe } from './simulated-contentsnare-api';
import { SandboxInbox, inboxPath } from './inbox';

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
  /** The demo connections, made at the first start and found again (tokens re-bound to this run's ports) at the next ones. */
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
  github.addUser(demo.githubToken, demo.githubLogin);
  const answers = defaultAnswers(() => github.url);
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
      const find = (label: string) => all.find((c) => c.label === label);
      const rebind = async (c: Connection, origin: string) => {
        const token = await readStoredToken(ctx.secrets, c.id);
        if (token && token.origin !== origin) await writeStoredToken(ctx.secrets, c.id, { ...token, origin });
        return c;
      };
      const githubOrigin = originOf(ctx.config.github.apiUrl);
      const gh = find(demo.githubLabel);
      const githubConnection = gh
        ? await rebind(gh, githubOrigin)
        : await createTokenConnection(ctx, { provider: 'github', token: demo.githubToken, label: demo.githubLabel });
      const snareOrigin = originOf(ctx.config.contentsnare.apiUrl);
      let cs = find(demo.contentsnareLabel);
      if (cs) await rebind(cs, snareOrigin);
      else {
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
