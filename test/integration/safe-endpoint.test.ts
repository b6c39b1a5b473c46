import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepPorts } from '../../shared/ports/app-context';
import type { StepContext } from '../../shared/tools/tool-step';
import { loadConfig } from '../../shared/config/config';
import { AppError } from '../../shared/domain/errors';
import type { Connection } from '../../shared/domain/model';
import { apiCall } from '../../shared/providers/github/api-call';
import type { GitHubClient } from '../../shared/providers/github/octokit';
import { endpointProblem, resolveEndpoint, sanitizeHeaders } from '../../shared/http/safe-endpoint';
import { silentLogger } from '../../shared/observability/logger';
import { noMetrics } from '../../shared/observability/metrics';
import { systemClock } from '../../shared/ports';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';

// RELIABILITY.md 26: every spelling that could leave the API's origin or base path.
const attacks = [
  'https://evil.example/repos/o/r',
  'HTTP://evil.example',
  'http://127.0.0.1:1/x',
  'ftp://evil.example/x',
  '//evil.example/x',
  '//127.0.0.1:1/x',
  '/\\evil.example/x',
  '\\\\evil.example\\x',
  '\\/evil.example',
  'http:evil.example',
  'https:/evil.example',
  'javascript:alert(1)',
  'evil.example:443/x',
  '@evil.example/x',
  '/@evil.example',
  '%40evil.example',
  '..',
  '/..',
  '/../x',
  '/repos/../../x',
  '/repos/o/r/..',
  '/./x',
  '/repos/%2e%2e/x',
  '/repos/%2E%2E/x',
  '/repos/.%2e/x',
  '/repos/%2e./x',
  '/%252e%252e/x',
  '/%25252e%25252e/x',
  '%2f%2fevil.example/x',
  '/%2F%2Fevil.example',
  '/%5cevil.example',
  '/repos\\o\\r',
  '/x\u0000y',
  '/x\r\nHost: evil.example',
  '/x\ty',
  '/x y',
  ' /x',
  '/x\u2028',
  '/x\u007f',
  '/x%0d%0aHost:%20evil.example',
  '/x%00',
  '/x%zz',
  '/x#fragment',
  '',
];

const allowed: Array<[string, string]> = [
  ['/repos/o/r/issues', '/repos/o/r/issues'],
  ['repos/o/r', '/repos/o/r'],
  ['/repos/o/r/compare/main...feature', '/repos/o/r/compare/main...feature'],
  ['/repos/o/r/contents/dir/file.txt?ref=main', '/repos/o/r/contents/dir/file.txt'],
  ['/repos/o/r/git/ref/heads%2Ffeature', '/repos/o/r/git/ref/heads%2Ffeature'],
  ['/user', '/user'],
  ['/search/issues?q=repo:o/r+is:open', '/search/issues'],
];

describe('endpoint guard', () => {
  it.each(attacks)('refuses %j as invalid_input naming input.endpoint', (attack) => {
    expect(endpointProblem(attack)).toBeDefined();
    try {
      resolveEndpoint('https://api.github.com', attack);
      expect.unreachable('should have thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe('invalid_input');
      expect((e as AppError).message).toContain('input.endpoint');
    }
  });

  it.each(allowed)('accepts %j under the base', (endpoint, path) => {
    const url = resolveEndpoint('https://api.github.com', endpoint);
    expect(url.origin).toBe('https://api.github.com');
    expect(url.pathname).toBe(path);
  });

  it('keeps enterprise requests under the base path and does not double it', () => {
    expect(resolveEndpoint('https://ghe.example/api/v3', '/repos/o/r').toString()).toBe('https://ghe.example/api/v3/repos/o/r');
    expect(resolveEndpoint('https://ghe.example/api/v3/', '/api/v3/repos/o/r').pathname).toBe('/api/v3/repos/o/r');
    expect(() => resolveEndpoint('https://ghe.example/api/v3', '/api/v3/../../admin')).toThrow(AppError);
  });

  it('merges query parameters, the query argument winning over the endpoint', () => {
    const url = resolveEndpoint('https://api.github.com', '/repos/o/r/issues?state=open&per_page=10', {
      per_page: 50,
      labels: 'bug,ui',
      draft: false,
    });
    expect(url.searchParams.get('state')).toBe('open');
    expect(url.searchParams.get('per_page')).toBe('50');
    expect(url.searchParams.get('labels')).toBe('bug,ui');
    expect(url.searchParams.get('draft')).toBe('false');
  });
});

describe('header guard', () => {
  // RELIABILITY.md 27.
  it.each([
    'Authorization',
    'authorization',
    'AUTHORIZATION',
    'Cookie',
    'Host',
    'Forwarded',
    'X-Forwarded-For',
    'X-Forwarded-Host',
    'Transfer-Encoding',
    'Content-Length',
    'Connection',
    'Proxy-Authorization',
  ])('refuses %s, naming the header', (name) => {
    expect(() => sanitizeHeaders({ [name]: 'x' })).toThrow(`input.headers.${name}`);
  });

  it('refuses CR or LF in a header value or name', () => {
    expect(() => sanitizeHeaders({ 'X-Note': 'a\r\nX-Evil: 1' })).toThrow('input.headers.X-Note');
    expect(() => sanitizeHeaders({ 'X-Note': 'a\nb' })).toThrow(/CR or LF/);
    expect(() => sanitizeHeaders({ 'X-A\r\nB': 'x' })).toThrow(/CR or LF/);
  });

  it('refuses a value a header cannot carry (beyond Latin-1), naming the header', () => {
    expect(() => sanitizeHeaders({ 'X-Note': 'caf\u00e9 \u2192 \u{1f600}' })).toThrow(/input\.headers\.X-Note: .*Latin-1/);
    expect(sanitizeHeaders({ 'X-Note': 'caf\u00e9' })).toEqual({ 'x-note': 'caf\u00e9' });
  });

  it('passes ordinary headers through with lower-cased names', () => {
    expect(
      sanitizeHeaders({ Accept: 'application/vnd.github.raw+json', 'If-None-Match': '"abc"', 'X-GitHub-Api-Version': '2022-11-28' }),
    ).toEqual({
      accept: 'application/vnd.github.raw+json',
      'if-none-match': '"abc"',
      'x-github-api-version': '2022-11-28',
    });
  });
});

describe('github.api_call refuses before any I/O', () => {
  let fake: FakeServer;
  let tokenReads = 0;
  let ctx: StepContext;

  beforeAll(async () => {
    fake = await startFakeHttp(() => ({ status: 200, body: {} }));
    const app = {
      config: loadConfig({ GITHUB_API_URL: fake.url }),
      clock: systemClock,
      fetch: globalThis.fetch,
      logger: silentLogger,
      metrics: noMetrics,
      tokens: {
        accessToken: async () => {
          tokenReads++;
          return 'ghp_neverSentAnywhere0000000000000000000';
        },
      },
    } as unknown as StepPorts;
    const now = new Date().toISOString();
    const connection: Connection = {
      id: 'conn_x',
      provider: 'github',
      accountLogin: 'o',
      authMethod: 'token',
      status: 'connected',
      repositories: [],
      createdAt: now,
      updatedAt: now,
    };
    ctx = { ...app, connection, logger: silentLogger };
  });
  afterAll(() => fake.close());

  const run = (input: unknown) => apiCall.run(input as never, {} as GitHubClient, ctx);

  it.each(attacks)('the schema and the step both refuse %j and nothing reaches the server', async (attack) => {
    expect(apiCall.input.safeParse({ method: 'GET', endpoint: attack }).success).toBe(false);
    await expect(run({ method: 'GET', endpoint: attack })).rejects.toMatchObject({ code: 'invalid_input' });
    expect(fake.requests).toHaveLength(0);
    expect(tokenReads).toBe(0);
  });

  it.each(['Authorization', 'Cookie', 'Host', 'X-Forwarded-For', 'Content-Length'])(
    'refuses a caller %s header and sends nothing',
    async (name) => {
      const parsed = apiCall.input.safeParse({ method: 'GET', endpoint: '/user', headers: { [name]: 'x' } });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['headers', name]);
      await expect(run({ method: 'GET', endpoint: '/user', headers: { [name]: 'x' } })).rejects.toMatchObject({ code: 'invalid_input' });
      expect(fake.requests).toHaveLength(0);
    },
  );
});
