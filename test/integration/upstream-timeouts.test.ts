import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ContentSnareClient } from '../../shared/providers/contentsnare/client';
import type { ContentSnareRateLimiter } from '../../shared/providers/contentsnare/rate-limiter';
import type { Connection } from '../../shared/domain/model';
import { apiCall } from '../../shared/providers/github/api-call';
import { githubClientFactory } from '../../shared/providers/github/client-factory';
import { mapGitHubError } from '../../shared/providers/github/github-errors';
import { createGitHubClient } from '../../shared/providers/github/octokit';
import { restCall } from '../../shared/providers/github/webhooks/rest-call';
import { silentLogger } from '../../shared/observability/logger';
import { systemClock } from '../../shared/ports';
import { invokeTool } from '../../shared/tools/invoke';
import { defineProvider, type ProviderTools } from '../../shared/tools/tool-step';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * docs/security.md, section 4: every outbound call ends, as a `timeout` error, when the upstream goes silent:
 * before its headers, or after them in the middle of the body. Limits are set small (200 ms)
 * for the test; the assertion is the error code and that the call ended at all (vitest's own
 * 5 s limit fails the test if it hangs), never a measured duration.
 */
interface Silent {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

/** A server that never answers, or (paths containing `stall-body`) sends headers and half a body. */
async function startSilentServer(): Promise<Silent> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    if (req.url?.includes('stall-body')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const tools: ProviderTools[] = [
  defineProvider({
    provider: 'github',
    steps: [apiCall],
    client: githubClientFactory,
    mapError: (e, nowMs) => mapGitHubError(e, nowMs),
  }),
];

let silent: Silent;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => {
  await silent.close();
});
beforeEach(() => {
  silent.hits.length = 0;
});

describe('github.api_call against a silent code host', () => {
  let t: ToolTestContext;
  let connectionId: string;
  beforeAll(async () => {
    t = await toolTestContext({ GITHUB_API_URL: silent.url, UPSTREAM_TIMEOUT_SECONDS: '0.2' });
    connectionId = (await t.connect({})).id;
  });

  it('answers timeout when no headers come', async () => {
    const r = await invokeTool(
      t.ctx,
      { toolId: 'github.api_call', connectionId, input: { method: 'GET', endpoint: '/repos/octo/hello' } },
      tools,
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'timeout', details: { timeoutMs: 200 } } });
  });

  it('answers timeout when the body stalls after the headers', async () => {
    const r = await invokeTool(
      t.ctx,
      { toolId: 'github.api_call', connectionId, input: { method: 'GET', endpoint: '/repos/octo/stall-body' } },
      tools,
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'timeout' } });
  });
});

describe('Octokit steps against a silent code host', () => {
  const client = () =>
    createGitHubClient({
      token: 'ghp_timeoutTest00000000000000000000000000',
      baseUrl: silent.url,
      fetch: globalThis.fetch,
      logger: silentLogger,
      timeoutMs: 200,
    });

  it('fail with timeout once, without retrying a read that would wait the whole limit again', async () => {
    const e = await client()
      .request('GET /repos/{owner}/{repo}', { owner: 'octo', repo: 'hello' })
      .catch((x: unknown) => x);
    expect(mapGitHubError(e, Date.now())).toMatchObject({ code: 'timeout' });
    // Sent once at most (under heavy load it may not even have arrived): never retried.
    expect(silent.hits.length).toBeLessThanOrEqual(1);
  });

  it('fail with timeout when the body stalls (not an empty success)', async () => {
    const e = await client()
      .request('GET /repos/{owner}/{repo}', { owner: 'octo', repo: 'stall-body' })
      .catch((x: unknown) => x);
    expect(mapGitHubError(e, Date.now())).toMatchObject({ code: 'timeout' });
  });
});

describe('the collection service client against a silent service', () => {
  const connection: Connection = {
    id: 'conn_cs_timeout',
    provider: 'contentsnare',
    accountLogin: 'a@example.com',
    authMethod: 'oauth',
    status: 'connected',
    repositories: [],
    createdAt: '2026-11-22T10:00:00Z',
    updatedAt: '2026-11-22T10:00:00Z',
  };
  // The limiter is not what is tested here: one that never waits.
  const limiter = { acquire: async () => undefined, block: async () => undefined } as unknown as ContentSnareRateLimiter;
  const client = () =>
    new ContentSnareClient({
      apiUrl: silent.url,
      connection,
      tokens: { accessToken: async () => 'cs-token' },
      fetch: globalThis.fetch,
      clock: systemClock,
      limiter,
      sleep: async () => undefined,
      requestTimeoutMs: 200,
      maxReadRetries: 0,
    });

  it('answers timeout when no headers come', async () => {
    await expect(client().request({ method: 'POST', endpoint: 'clients', body: {} })).rejects.toMatchObject({ code: 'timeout' });
  });

  it('answers timeout when the body stalls after the headers', async () => {
    await expect(client().request({ method: 'GET', endpoint: 'stall-body' })).rejects.toMatchObject({ code: 'timeout' });
  });
});

describe("the webhook machinery's REST calls (hooks, polling, the token check) against a silent code host", () => {
  const call = (path: string) => restCall(globalThis.fetch, { baseUrl: silent.url, token: 'ghp_x', method: 'GET', path, timeoutMs: 200 });

  it('answers timeout when no headers come', async () => {
    await expect(call('/repos/octo/hello/hooks')).rejects.toMatchObject({ code: 'timeout' });
  });

  it('answers timeout when the body stalls after the headers (not an unexpected error)', async () => {
    await expect(call('/repos/octo/stall-body/hooks')).rejects.toMatchObject({ code: 'timeout' });
  });
});
