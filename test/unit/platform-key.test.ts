import { describe, expect, it } from 'vitest';
import { platformKey } from '../../local/cli/local-admin-client';
import { buildAwsCoreContext } from '../../shared/wiring/aws-core-context';
import { ConfigError, loadConfig } from '../../shared/config/config';
import { optionalSecret } from '../../shared/config/secret-config';
import { createRouter } from '../../shared/http/router';
import { json } from '../../shared/http/responses';
import type { HttpRequest } from '../../shared/http/types';
import type { Store } from '../../shared/ports';
import { TestClock } from '../helpers/test-clock';

/**
 * The platform key and the dispatch signing secret: long enough to resist guessing
 * (docs/security.md, section 8), and a platform key that can be rotated without downtime
 * (docs/operations.md, "Rotate the platform key"):
 * during a rotation `PLATFORM_API_KEY` (or the secret on AWS) holds `<new>,<old>`, both
 * valid, each compared in constant time.
 */
const keyA = 'a'.repeat(32);
const keyB = `pk_${'b'.repeat(40)}`;
const keyC = 'c'.repeat(48);

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

const request = (authorization?: string): HttpRequest => ({
  method: 'GET',
  path: '/connections',
  headers: authorization ? { authorization } : {},
  query: new URLSearchParams(),
  body: Buffer.alloc(0),
});

const routerWith = (platformApiKey: () => Promise<string>) =>
  createRouter([{ method: 'GET', pattern: '/connections', auth: 'platform', handle: async () => json(200, { ok: true }) }], {
    platformApiKey,
  });

describe('key length from the environment', () => {
  it('refuses a PLATFORM_API_KEY or DISPATCH_SIGNING_SECRET shorter than 32 characters, naming the variable and not the value', () => {
    const problems = problemsOf({ PLATFORM_API_KEY: 'short-platform-key', DISPATCH_SIGNING_SECRET: 'short-signing-secret' });
    expect(problems).toHaveLength(2);
    expect(problems.find((p) => p.startsWith('PLATFORM_API_KEY:'))).toMatch(/at least 32 characters/);
    expect(problems.find((p) => p.startsWith('DISPATCH_SIGNING_SECRET:'))).toMatch(/at least 32 characters/);
    expect(problems.join('\n')).not.toContain('short-');
  });

  it('accepts keys of 32 characters and more, and leaves unset ones unset', () => {
    expect(problemsOf({ PLATFORM_API_KEY: keyA, DISPATCH_SIGNING_SECRET: keyC })).toEqual([]);
    expect(loadConfig({}).platformApiKey).toBeUndefined();
  });

  it('takes two comma-separated platform keys for a rotation, each at least 32, and no more than two', () => {
    expect(loadConfig({ PLATFORM_API_KEY: `${keyB}, ${keyA}` }).platformApiKey).toBe(`${keyB},${keyA}`);
    expect(problemsOf({ PLATFORM_API_KEY: `${keyB},tooshort` })[0]).toMatch(/^PLATFORM_API_KEY: .*at least 32 characters/);
    expect(problemsOf({ PLATFORM_API_KEY: `${keyA},${keyB},${keyC}` })[0]).toMatch(/^PLATFORM_API_KEY: .*at most two keys/);
    expect(problemsOf({ PLATFORM_API_KEY: `${keyA},` })[0]).toMatch(/^PLATFORM_API_KEY:/);
  });
});

describe('platform key check', () => {
  it('accepts either key during a rotation and nothing else', async () => {
    const handle = routerWith(async () => loadConfig({ PLATFORM_API_KEY: `${keyB},${keyA}` }).platformApiKey!);
    expect((await handle(request(`Bearer ${keyB}`))).status).toBe(200);
    expect((await handle(request(`Bearer ${keyA}`))).status).toBe(200);
    for (const wrong of [`Bearer ${keyC}`, `Bearer ${keyB},${keyA}`, `Bearer ${keyA.slice(1)}`, `Bearer ${keyA}x`, 'Bearer ', undefined]) {
      expect((await handle(request(wrong))).status, String(wrong)).toBe(401);
    }
  });

  it('refuses every request, rather than accept a weak key, when the stored secret holds one shorter than 32', async () => {
    const handle = routerWith(async () => `${keyA},weak`);
    const res = await handle(request('Bearer weak'));
    expect(res.status).toBe(501);
    expect(JSON.stringify(res.body)).not.toContain('weak"');
    expect((await handle(request(`Bearer ${keyA}`))).status).toBe(501);
  });
});

describe('rotation locally', () => {
  it('has the operator CLIs send the new key when PLATFORM_API_KEY holds two', () => {
    expect(platformKey({ PLATFORM_API_KEY: `${keyB}, ${keyA}` })).toBe(keyB);
    expect(platformKey({ PLATFORM_API_KEY: keyA })).toBe(keyA);
  });
});

describe('rotation on AWS', () => {
  it('re-reads the platform key secret after 5 minutes, so a rotation reaches warm containers', async () => {
    const clock = new TestClock();
    let stored = keyA;
    const reads: string[] = [];
    const secretsManager = {
      async send(command: unknown) {
        reads.push((command as { input: { SecretId: string } }).input.SecretId);
        return { SecretString: stored };
      },
    };
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:platform-key-AbCdEf';
    const ctx = buildAwsCoreContext(loadConfig({ PLATFORM_API_KEY_SECRET_ARN: arn }), {}, { store: {} as Store, secretsManager, clock });
    const handle = routerWith(ctx.platformApiKey);
    expect((await handle(request(`Bearer ${keyA}`))).status).toBe(200);

    // Step 1: the new key is added in front of the old one.
    stored = `${keyB},${keyA}`;
    clock.advance(4 * 60_000);
    expect((await handle(request(`Bearer ${keyB}`))).status).toBe(401); // still the cached value
    clock.advance(61_000);
    expect((await handle(request(`Bearer ${keyB}`))).status).toBe(200);
    expect((await handle(request(`Bearer ${keyA}`))).status).toBe(200);

    // Step 3: the old key is removed.
    stored = keyB;
    clock.advance(5 * 60_000 + 1);
    expect((await handle(request(`Bearer ${keyA}`))).status).toBe(401);
    expect((await handle(request(`Bearer ${keyB}`))).status).toBe(200);
    expect(reads).toHaveLength(3);
  });
});

describe('secret refresh', () => {
  it('keeps serving the last value when a re-read fails, and tries again after another max age', async () => {
    const clock = new TestClock();
    let answer: () => Promise<string | undefined> = async () => 'first';
    let reads = 0;
    const secret = optionalSecret(
      { arn: 'arn:x', env: { value: 'X', arn: 'X_SECRET_ARN' } },
      () => {
        reads++;
        return answer();
      },
      {
        maxAgeMs: 1000,
        now: () => clock.now(),
      },
    );
    expect(await secret()).toBe('first');
    answer = () => Promise.reject(new Error('Secrets Manager is down'));
    clock.advance(1001);
    expect(await secret()).toBe('first');
    expect(await secret()).toBe('first');
    expect(reads).toBe(2);
    answer = async () => 'second';
    clock.advance(1001);
    expect(await secret()).toBe('second');
    expect(reads).toBe(3);
  });
});
