import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SnareHookRepo } from '../../shared/providers/contentsnare/snare-hook';
import { contentsnareTools } from '../../shared/providers/contentsnare/tools';
import { githubTools } from '../../shared/providers/github/tools';
import { EndpointRepo, endpointIdFor } from '../../shared/store/endpoint-repo';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

/**
 * The hooks the product registered are its own: an agent's API call may not read, change or
 * delete them (a deleted code-host hook silences every subscription on it; the collection
 * service's hook URL carries the intake's only credential), and a hook listing leaves them out.
 */
const tools = [githubTools, contentsnareTools];
const managedGithubHook = 10_001;
const ownGithubHook = 20_002;
const managedSnareHook = 'wh_managed_1';
const ownSnareHook = 'wh_own_2';

let host: FakeServer;
let t: ToolTestContext;
let github: string;
let snare: string;
const call = (toolId: string, connectionId: string, input: unknown): Promise<ToolResult> =>
  invokeTool(t.ctx, { toolId, connectionId, input }, tools);

beforeAll(async () => {
  host = await startFakeHttp();
  t = await toolTestContext({ GITHUB_API_URL: host.url, CONTENTSNARE_API_URL: host.url });
  github = (await t.connect({})).id;
  snare = (await t.connect({ provider: 'contentsnare', authMethod: 'oauth', accountLogin: 'ops@example.com' }, 'cs-token-managed')).id;
  // The hook another connection made on the same repository is the product's too.
  const other = (await t.connect({ accountLogin: 'hubot' })).id;
  const target = { kind: 'repository' as const, repository: 'octo/repo' };
  await new EndpointRepo(t.ctx.store).create({
    id: endpointIdFor(other, target),
    connectionId: other,
    target,
    hookId: managedGithubHook,
    events: ['issues'],
    createdAt: new Date().toISOString(),
  });
  await new SnareHookRepo(t.ctx.store).put({
    connectionId: snare,
    hookId: managedSnareHook,
    events: ['request_completed'],
    tokenSha256: '0'.repeat(64),
    createdAt: new Date().toISOString(),
  });
});
afterAll(async () => {
  await host.close();
});
beforeEach(() => {
  host.requests.length = 0;
  host.setHandler((req) => {
    if (req.path.endsWith('/hooks'))
      return {
        body: [{ id: managedGithubHook, config: { url: 'https://integrations.example/webhooks/github/ep_x' } }, { id: ownGithubHook }],
      };
    if (req.path.endsWith('/partner_api/v1/webhooks'))
      return {
        body: {
          pagination: { limit: 20, offset: 0, total: 2 },
          results: [
            { id: managedSnareHook, url: 'https://integrations.example/webhooks/contentsnare/conn/secret-token' },
            { id: ownSnareHook, url: 'https://agent.example/hook' },
          ],
        },
      };
    return { body: { ok: 1 } };
  });
});

describe("the code host's hooks the product manages, through github.api_call", () => {
  const paths = [
    ['GET', `/repos/octo/repo/hooks/${managedGithubHook}`],
    ['PATCH', `/repos/octo/repo/hooks/${managedGithubHook}`],
    ['DELETE', `/repos/octo/repo/hooks/${managedGithubHook}`],
    ['PATCH', `/repos/octo/repo/hooks/${managedGithubHook}/config`],
    ['GET', `/repos/octo/repo/hooks/${managedGithubHook}/config`],
    ['POST', `/repos/octo/repo/hooks/${managedGithubHook}/pings`],
    ['POST', `/repos/octo/repo/hooks/${managedGithubHook}/tests`],
    ['GET', `/repos/octo/repo/hooks/${managedGithubHook}/deliveries`],
    ['POST', `/repos/octo/repo/hooks/${managedGithubHook}/deliveries/1/attempts`],
    ['DELETE', `/REPOS/octo/repo/HOOKS/${managedGithubHook}/`],
    ['DELETE', `/repos/octo/repo/hooks/%31%30%30%30%31`],
    ['DELETE', `/orgs/octo/hooks/${managedGithubHook}`],
    ['PATCH', `/orgs/octo/hooks/${managedGithubHook}/config`],
  ] as const;
  for (const [method, endpoint] of paths) {
    it(`refuses ${method} ${endpoint} with managed_hook, sending nothing (a dry run too)`, async () => {
      for (const dryRun of [false, true]) {
        const body = method === 'GET' || method === 'DELETE' ? {} : { body: { active: false } };
        const result = await call('github.api_call', github, { method, endpoint, ...body, ...(dryRun ? { dryRun } : {}) });
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.error.code).toBe('managed_hook');
          expect(result.error.message).toMatch(/managed/);
        }
      }
      expect(host.requests).toEqual([]);
    });
  }

  it("still reaches the account's own hooks", async () => {
    const result = await call('github.api_call', github, { method: 'DELETE', endpoint: `/repos/octo/repo/hooks/${ownGithubHook}` });
    expect(result.ok).toBe(true);
    expect(host.requests.map((r) => r.path)).toEqual([`/repos/octo/repo/hooks/${ownGithubHook}`]);
  });

  it('lists hooks without the managed one (its URL is the intake)', async () => {
    for (const endpoint of ['/repos/octo/repo/hooks', '/orgs/octo/hooks']) {
      const result = await call('github.api_call', github, { method: 'GET', endpoint });
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect((result.data as { data: Array<{ id: number }> }).data).toEqual([{ id: ownGithubHook }]);
        expect(JSON.stringify(result.data)).not.toContain('/webhooks/github/');
      }
    }
  });
});

describe("the collection service's webhook the product manages, through contentsnare.api_call", () => {
  for (const [method, endpoint] of [
    ['GET', `webhooks/${managedSnareHook}`],
    ['PUT', `/webhooks/${managedSnareHook}`],
    ['DELETE', `/partner_api/v1/webhooks/${managedSnareHook}`],
    ['DELETE', `webhooks/${managedSnareHook}/`],
  ] as const) {
    it(`refuses ${method} ${endpoint} with managed_hook, sending nothing (a dry run too)`, async () => {
      for (const dryRun of [false, true]) {
        const body = method === 'PUT' ? { body: { url: 'https://attacker.example/x', enabled: true } } : {};
        const result = await call('contentsnare.api_call', snare, { method, endpoint, ...body, ...(dryRun ? { dryRun } : {}) });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.code).toBe('managed_hook');
      }
      expect(host.requests).toEqual([]);
    });
  }

  it('lists webhooks without the managed one, whose URL token is the intake credential', async () => {
    const result = await call('contentsnare.api_call', snare, { method: 'GET', endpoint: 'webhooks' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      const data = (result.data as { data: { results: Array<{ id: string }> } }).data;
      expect(data.results.map((r) => r.id)).toEqual([ownSnareHook]);
      expect(JSON.stringify(result.data)).not.toContain('secret-token');
    }
  });

  it("still changes the account's own webhook and creates new ones", async () => {
    expect((await call('contentsnare.api_call', snare, { method: 'DELETE', endpoint: `webhooks/${ownSnareHook}` })).ok).toBe(true);
    const made = await call('contentsnare.api_call', snare, {
      method: 'POST',
      endpoint: 'webhooks',
      body: { url: 'https://agent.example/hook', subscriptions: ['request_completed'] },
    });
    expect(made.ok).toBe(true);
  });
});
