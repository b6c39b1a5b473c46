import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config';
import { configuredOrigins, guardedFetch, type Resolver } from '../../shared/http/guarded-fetch';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';

/**
 * docs/security.md, section 3: a caller-chosen host is reached only when every address it resolves to is
 * allowed, decided when each connection is opened (so DNS rebinding cannot slip through).
 * Names are resolved by an injected resolver (no real DNS); the server is a loopback fake,
 * reached under made-up names to show the hook is what connects.
 */
describe('guardedFetch', () => {
  let server: FakeServer;
  let answers: Record<string, string[][]>;
  let lookups: string[];
  const resolve: Resolver = async (host) => {
    lookups.push(host);
    const queue = answers[host];
    const next = queue && queue.length > 1 ? queue.shift()! : queue?.[0];
    if (!next) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const make = (o: { allowLoopback?: boolean; allowedPrivateHosts?: string[]; trustedOrigins?: string[] } = {}) =>
    guardedFetch({
      trustedOrigins: o.trustedOrigins ?? [],
      allowLoopback: o.allowLoopback ?? false,
      allowedPrivateHosts: o.allowedPrivateHosts ?? [],
      resolve,
    });
  const at = (host: string, path = '/api/v3/user') => `http://${host}:${server.port}${path}`;

  beforeAll(async () => {
    server = await startFakeHttp((req) => ({ body: { path: req.path, host: req.headers.host } }));
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
    lookups = [];
    answers = {
      'ghe.test': [['127.0.0.1']],
      'metadata.test': [['169.254.169.254']],
      'mixed.test': [['127.0.0.1', '169.254.169.254']],
      'mapped.test': [['::ffff:169.254.169.254']],
      'ec2v6.test': [['fd00:ec2::254']],
      'corp.test': [['10.0.0.5']],
    };
  });

  it('connects through the hook to an allowed address, with the name as Host', async () => {
    const res = await make({ allowLoopback: true })(at('ghe.test'), { headers: { authorization: 'Bearer t' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/api/v3/user', host: `ghe.test:${server.port}` });
    expect(lookups).toEqual(['ghe.test']);
    expect(res.url).toBe(at('ghe.test'));
    expect(server.requests[0]?.headers.authorization).toBe('Bearer t');
  });

  it.each([
    ['metadata.test', /169\.254\.169\.254 is a metadata address/],
    ['mixed.test', /metadata/],
    ['mapped.test', /metadata/],
    ['ec2v6.test', /metadata/],
    ['corp.test', /10\.0\.0\.5 is a private address.*GITHUB_ALLOWED_PRIVATE_HOSTS/],
  ])('refuses %s (every resolved address is checked) and sends nothing', async (host, why) => {
    const e = await make({ allowLoopback: true })(at(host)).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'forbidden', details: { reason: 'address_not_allowed' } });
    expect((e as Error).message).toMatch(why);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses loopback unless the runtime allows it or the operator listed the host', async () => {
    await expect(make()(at('ghe.test'))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(make()(`http://127.0.0.1:${server.port}/x`)).rejects.toMatchObject({ code: 'forbidden' });
    expect(server.requests).toHaveLength(0);
    expect((await make({ allowedPrivateHosts: ['ghe.test'] })(at('ghe.test'))).status).toBe(200);
  });

  it('refuses literal addresses no setting opens, in every spelling, without resolving anything', async () => {
    const f = make({ allowLoopback: true, allowedPrivateHosts: ['[::ffff:a9fe:a9fe]', '0.0.0.0'] });
    for (const url of ['http://[::ffff:169.254.169.254]/latest', 'http://[fd00:ec2::254]/', 'http://0.0.0.0/', 'http://169.254.169.254/']) {
      await expect(f(url), url).rejects.toMatchObject({ code: 'forbidden' });
    }
    expect(lookups).toEqual([]);
  });

  it('decides again at connect time: a name that turns to the metadata address later is refused (DNS rebinding)', async () => {
    answers['rebind.test'] = [['127.0.0.1'], ['169.254.169.254']];
    const f = make({ allowLoopback: true });
    const first = await f(at('rebind.test'), { headers: { connection: 'close' } });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    await expect(f(at('rebind.test'), { headers: { connection: 'close' } })).rejects.toMatchObject({ code: 'forbidden' });
    expect(lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(server.requests).toHaveLength(1);
  });

  it('sends trusted (operator-configured) origins through the platform fetch, and never follows a redirect itself', async () => {
    const trusted = `http://127.0.0.1:${server.port}`;
    expect((await make({ trustedOrigins: [trusted] })(`${trusted}/x`)).status).toBe(200);
    expect(lookups).toEqual([]);
    server.setHandler(() => ({ status: 302, headers: { location: 'http://169.254.169.254/latest' } }));
    const res = await make({ allowLoopback: true })(at('ghe.test'), { redirect: 'follow' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://169.254.169.254/latest');
  });

  it('sends a body and passes an unresolvable name on as a network failure', async () => {
    server.setHandler((req) => ({ status: 201, body: { got: req.json } }));
    const res = await make({ allowLoopback: true })(at('ghe.test', '/api/v3/repos'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: { a: 1 } });
    await expect(make()(at('nowhere.test'))).rejects.toThrow(TypeError);
  });
});

describe('the runtime settings of the guard', () => {
  it('reads GITHUB_ALLOWED_PRIVATE_HOSTS as lower-case hosts (IPv6 without brackets) and trusts only configured origins', () => {
    const config = loadConfig({
      GITHUB_ALLOWED_PRIVATE_HOSTS: ' GHE.corp.test , [fd12::1],',
      GITHUB_API_URL: 'https://ghe.corp.test/api/v3',
      AGENT_RUNTIME_URL: 'http://10.0.0.9:8080/events',
    });
    expect(config.github.allowedPrivateHosts).toEqual(['ghe.corp.test', 'fd12::1']);
    expect(loadConfig({}).github.allowedPrivateHosts).toEqual([]);
    expect(configuredOrigins(config)).toEqual(
      expect.arrayContaining([
        'https://ghe.corp.test',
        'https://github.com',
        'https://api.contentsnare.com',
        'http://10.0.0.9:8080',
        'http://localhost:3000',
      ]),
    );
  });

  it('reads UPSTREAM_TIMEOUT_SECONDS (default 15) and refuses a non-positive one', () => {
    expect(loadConfig({}).upstreamTimeoutSeconds).toBe(15);
    expect(loadConfig({ UPSTREAM_TIMEOUT_SECONDS: '2.5' }).upstreamTimeoutSeconds).toBe(2.5);
    expect(() => loadConfig({ UPSTREAM_TIMEOUT_SECONDS: '0' })).toThrow(/UPSTREAM_TIMEOUT_SECONDS/);
  });
});
