import type { DeliveryBound } from '../delivery-bound';
import { GitHubAnswerBack } from './answer-back';
import { defaultAnswers } from './github-answers';
import { SimulatedGitHubWorld, type WorldState } from './github-world';
import { SimulatedLoopWorld } from './github-world-loop';
import { checkAgainstOpenApi, type OperationResponder } from './openapi-check';
import { playGitHubApp, type SandboxApp } from './sandbox-app';
import { playGitHubOAuthApp, type SandboxOAuthApp } from './sandbox-oauth';
import { SimulatedGitHub, type SimulatedHook, type SimulatedUser } from './simulated-github';
import type { SimulatedUserTokens } from './simulated-github-app';
import type { RecordedRequest, SimulatedResponse } from '../simulated-http';
import type { OAuthServerState } from '../simulated-oauth';

/** What the sandbox keeps of its code host across restarts. */
export interface SandboxGitHubState {
  userId: number;
  nextId: number;
  hooks: SimulatedHook[];
  world: WorldState;
}

export interface SandboxGitHubOptions {
  /** The demo account: its token and login, and the repository the examples use (`owner/name`). */
  token: string;
  login: string;
  repository: string;
  /**
   * What an earlier start kept, read once the code host listens (the state names it by its URL,
   * new at each start); undefined: the demo world is seeded.
   */
  restore: (
    url: string,
  ) => { github: SandboxGitHubState; githubApp?: SimulatedUserTokens | undefined; githubOAuth?: OAuthServerState | undefined } | undefined;
  bound: DeliveryBound;
}

/** The sandbox's code host, assembled: the REST routes over one world, the App, the OAuth app, and its deliveries. */
export interface SandboxGitHub {
  github: SimulatedGitHub;
  user: SimulatedUser;
  world: SimulatedGitHubWorld;
  app: SandboxApp;
  oauth: SandboxOAuthApp;
  answerBack: GitHubAnswerBack;
  state(): SandboxGitHubState;
  /** Puts back what `state` answered (a write the sandbox could not keep is undone). */
  restore(state: SandboxGitHubState): void;
  /** The settings that point the runtime at this code host (its App and OAuth app unless the environment names its own). */
  environment(env: Record<string, string | undefined>, runtimePort: number): Record<string, string>;
}

const notFound: SimulatedResponse = { status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } };

/** The demo account's world at the first start: its repository and a gist. */
function seed(world: SimulatedGitHubWorld, repository: string): void {
  world.addRepository(repository.split('/')[1] ?? 'hello-world', { description: 'My first repository on GitHub!' });
  world.addGist('Hello World Examples', {
    'hello_world.rb': 'class HelloWorld\n  def initialize(name)\n    @name = name.capitalize\n  end\nend\n',
  });
}

/**
 * Every request the simulated host's own routes leave (the tool steps' operations) is held to
 * the REST description and answered from the world, and what a write announces is delivered.
 */
function answerFromTheWorld(
  world: SimulatedGitHubWorld,
  answers: Record<string, OperationResponder>,
  answerBack: GitHubAnswerBack,
): (req: RecordedRequest) => SimulatedResponse | Promise<SimulatedResponse> {
  return (req) => {
    const { problems, match } = checkAgainstOpenApi(req);
    if (!match) return notFound;
    // What the real service says of a malformed request: 422 with the reasons.
    if (problems.length > 0)
      return { status: 422, body: { message: 'Validation Failed', errors: problems.map((message) => ({ code: 'invalid', message })) } };
    // A repository the world does not hold is 404, as the code host answers (for one it hides, too).
    const { owner, repo } = match.params;
    if (owner !== undefined && repo !== undefined && !world.hasRepository(owner, repo)) return notFound;
    const answer = answers[match.operationId];
    return answer ? answerBack.answer(match, answer) : { status: 200, body: {} };
  };
}

/**
 * The sandbox's simulated code host (`npm run dev`): the demo account's world behind the lists
 * and the single resources (what a list shows can be fetched), every operation held to the REST
 * description, the GitHub App and an OAuth app approved as the demo user, and the webhooks a
 * write makes, delivered within `bound`.
 */
export async function startSandboxGitHub(o: SandboxGitHubOptions): Promise<SandboxGitHub> {
  const github = await SimulatedGitHub.start({ record: false });
  const kept = o.restore(github.url);
  const user = github.addUser(o.token, o.login, kept?.github.userId);
  const world = new SimulatedGitHubWorld(github, o.login, user.id);
  const restore = (state: SandboxGitHubState) => {
    world.restore(state.world);
    github.restoreHooks(state);
  };
  if (kept) restore(kept.github);
  else seed(world, o.repository);
  github.hookOwnerExists = (owner) => world.hookOwnerExists(owner);
  github.profile = (account) => (account.id === user.id ? world.profile() : undefined);
  const answers = { ...defaultAnswers(() => github.url), ...world.answers() };
  const loop = new SimulatedLoopWorld(world, () => github.url, o.login);
  Object.assign(answers, loop.answers(answers.graphql));
  const [owner = '', repo = ''] = o.repository.split('/');
  loop.addDiscussion(owner, repo, { number: 1, title: 'Welcome', body: 'Say hello here.' });
  const app = playGitHubApp(github, user);
  if (kept?.githubApp) app.app.restoreUserTokens(kept.githubApp);
  const announcing = {
    branchHeads: (owner: string, repo: string) => world.branchHeads(owner, repo),
    commit: (owner: string, repo: string, sha: string) => world.commit(owner, repo, sha),
    answers,
  };
  const answerBack = new GitHubAnswerBack(github, announcing, o.bound, () => app.webhook());
  github.otherwise = answerFromTheWorld(world, answers, answerBack);
  // Job logs are fetched without the token, from the signed URL the log request answered.
  const appFirst = github.before;
  github.before = (req) => loop.serveLog(req) ?? appFirst?.(req);
  const oauth = playGitHubOAuthApp(github, user, kept?.githubOAuth);
  return {
    github,
    user,
    world,
    app,
    oauth,
    answerBack,
    state: () => ({ userId: user.id, ...github.hookState(), world: world.snapshot() }),
    restore,
    environment: (env, runtimePort) => ({ GITHUB_API_URL: github.url, ...oauth.environment(env), ...app.environment(env, runtimePort) }),
  };
}
