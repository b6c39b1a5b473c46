import { SimulatedGitHubApp, type SimulatedAppOptions } from '../../local/sandbox/github/simulated-github-app';
import { startFakeHttp, type FakeResponse, type FakeServer, type RecordedRequest } from './fake-http';

export {
  SimulatedGitHubApp as FakeGitHubAppWorld,
  type SimulatedHookDelivery as FakeHookDelivery,
  type SimulatedInstallation as FakeInstallation,
} from '../../local/sandbox/github/simulated-github-app';

export interface FakeGitHubApp {
  app: SimulatedGitHubApp;
  server: FakeServer;
  url: string;
  /** The environment that points the product at this fake as its GitHub App. */
  env(publicUrl: string): Record<string, string>;
  /** Mints the fake saw for an installation. */
  mints(installationId: number): number;
  /** Requests that reached the code host's other routes (the tool steps'), with the token kind they carried. */
  requestsTo(path: string | RegExp): RecordedRequest[];
  close(): Promise<void>;
}

/**
 * GitHub as a GitHub App on loopback (local/sandbox/github/simulated-github-app.ts, written from
 * GitHub's documentation), with a few repository and gist routes for the tool steps: `GET
 * /repos/{owner}/{repo}`, `GET /repos/{owner}/{repo}/tags`, `GET` and `POST /gists`, `PUT /user/starred/{owner}/{repo}`, which answer
 * only tokens the App side accepted for them.
 */
export async function startFakeGitHubApp(
  options: SimulatedAppOptions & { other?: (req: RecordedRequest) => FakeResponse } = {},
): Promise<FakeGitHubApp> {
  const app = new SimulatedGitHubApp(options);
  const server = await startFakeHttp((req) => {
    const answered = app.handle(req);
    if (answered) return answered;
    const token = (req.headers.authorization ?? '').replace(/^(Bearer|token) /i, '');
    if (!app.installationTokens.has(token) && !app.userTokens.has(token)) return { status: 401, body: { message: 'Bad credentials' } };
    const repo = /^\/repos\/([^/]+)\/([^/]+)$/.exec(req.path);
    if (req.method === 'GET' && repo) {
      return { body: { id: 1, name: repo[2], full_name: `${repo[1]}/${repo[2]}`, default_branch: 'main', private: false } };
    }
    if (req.method === 'GET' && (req.path === '/gists' || /^\/repos\/[^/]+\/[^/]+\/tags$/.test(req.path))) return { body: [] };
    if (req.method === 'POST' && req.path === '/gists')
      return { status: 201, body: { id: 'gist1', html_url: 'https://gist.example/gist1' } };
    if (req.method === 'PUT' && /^\/user\/starred\/[^/]+\/[^/]+$/.test(req.path)) return { status: 204 };
    return options.other?.(req) ?? { status: 404, body: { message: 'Not Found' } };
  });
  return {
    app,
    server,
    url: server.url,
    env: (publicUrl) => {
      app.callbackUrl = `${publicUrl}/oauth/github-app/callback`;
      return {
        GITHUB_API_URL: server.url,
        GITHUB_OAUTH_URL: server.url,
        GITHUB_APP_ID: String(app.appId),
        GITHUB_APP_SLUG: app.slug,
        GITHUB_APP_CLIENT_ID: app.clientId,
        GITHUB_APP_CLIENT_SECRET: app.clientSecret,
        GITHUB_APP_PRIVATE_KEY: app.privateKeyPem,
      };
    },
    mints: (id) => app.mints.get(id) ?? 0,
    requestsTo: (path) => server.requests.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path))),
    close: () => server.close(),
  };
}
