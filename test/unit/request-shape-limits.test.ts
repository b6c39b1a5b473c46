import { describe, expect, it } from 'vitest';
import { jsonDepth, maxAnswerBytes, maxJsonDepth } from '../../shared/http/json-shape';
import { json } from '../../shared/http/responses';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest, Route } from '../../shared/http/types';

const nested = (levels: number, open = '{"a":', close = '}') => `${open.repeat(levels)}1${close.repeat(levels)}`;
const bytes = (s: string) => Buffer.from(s);

describe('jsonDepth: how deep a body nests, read from its bytes without parsing', () => {
  it('counts objects and arrays, not brackets inside strings or escaped quotes', () => {
    expect(jsonDepth(bytes('1'))).toBe(0);
    expect(jsonDepth(bytes('{"a":[1,{"b":[]}]}'))).toBe(4);
    expect(jsonDepth(bytes('{"a":"[[[[{{{{","b":"\\"[[[["}'))).toBe(1);
    expect(jsonDepth(bytes('["\\\\",[[]]]'))).toBe(3);
    expect(jsonDepth(bytes(nested(maxJsonDepth)))).toBe(maxJsonDepth);
  });

  it('stops as soon as the limit is passed, and needs no stack for 20,000 levels', () => {
    const deep = bytes(nested(20_000, '[', ']'));
    expect(jsonDepth(deep, maxJsonDepth)).toBe(maxJsonDepth + 1);
    expect(jsonDepth(deep, 1_000_000)).toBe(20_000);
  });
});

describe('router: request shapes and answer sizes are bounded on every route', () => {
  const key = 'router-test-key-of-at-least-32-characters';
  const seen: unknown[] = [];
  const errors: unknown[] = [];
  const parse: Route = {
    method: 'POST',
    pattern: '/parse',
    auth: 'platform',
    handle: async (req) => {
      const value = JSON.parse(String(req.body));
      seen.push(value);
      return json(200, { ok: true });
    },
  };
  const huge: Route = {
    method: 'GET',
    pattern: '/huge',
    auth: 'platform',
    handle: async () => json(200, { data: 'x'.repeat(maxAnswerBytes) }),
  };
  const router = createRouter([parse, huge], { platformApiKey: async () => key, onError: (e) => errors.push(e) });
  const request = (method: string, path: string, body: string): HttpRequest => ({
    method,
    path,
    headers: { authorization: `Bearer ${key}` },
    query: new URLSearchParams(),
    body: Buffer.from(body),
  });

  it('refuses a body nested 20,000 levels (120 KB) with 400 nesting_too_deep naming the limit; the route never sees it', async () => {
    const body = nested(20_000);
    expect(body.length).toBeGreaterThan(100_000);
    const answer = await router(request('POST', '/parse', body));
    expect(answer.status).toBe(400);
    expect(JSON.parse(String(answer.body))).toMatchObject({
      error: { code: 'nesting_too_deep', details: { limit: maxJsonDepth, fields: [{ field: '(body)' }] } },
    });
    expect(JSON.parse(String(answer.body)).error.message).toContain(String(maxJsonDepth));
    expect(seen).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('takes a body as deep as the limit', async () => {
    expect((await router(request('POST', '/parse', nested(maxJsonDepth)))).status).toBe(200);
  });

  it('turns an answer larger than an answer may be into answer_too_large, a small body', async () => {
    const answer = await router(request('GET', '/huge', ''));
    expect(answer.status).toBe(500);
    expect(Buffer.byteLength(answer.body ?? '')).toBeLessThan(1024);
    expect(JSON.parse(String(answer.body))).toMatchObject({ error: { code: 'answer_too_large', details: { limit: maxAnswerBytes } } });
  });
});
