import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromLambdaEvent, toLambdaResult } from '../../shared/http/lambda-http';
import { json } from '../../shared/http/responses';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest, Route } from '../../shared/http/types';

const key = 'router-test-key-of-at-least-32-characters';
const echo: Route = { method: 'GET', pattern: '/things/:id', auth: 'platform', handle: async (req) => json(200, { id: req.params.id }) };
const upload: Route = {
  method: 'POST',
  pattern: '/upload',
  auth: 'none',
  maxBodyBytes: 10,
  handle: async (req) => json(200, { size: req.body.length }),
};
const small: Route = { method: 'POST', pattern: '/small', auth: 'platform', handle: async (req) => json(200, { size: req.body.length }) };
const router = createRouter([echo, upload, small], { platformApiKey: async () => key });

const request = (method: string, path: string, extra: Partial<HttpRequest> = {}): HttpRequest => ({
  method,
  path,
  headers: { authorization: `Bearer ${key}` },
  query: new URLSearchParams(),
  body: Buffer.alloc(0),
  ...extra,
});

describe('router', () => {
  it('answers a malformed percent-encoding in a path parameter with 400 naming it, not 500', async () => {
    const answer = await router(request('GET', '/things/%E0%A4%A'));
    expect(answer.status).toBe(400);
    expect(JSON.parse(String(answer.body))).toMatchObject({
      error: { code: 'invalid_input', details: { fields: [{ field: 'path.id' }] } },
    });
    expect((await router(request('GET', '/things/a%20b'))).body).toBe(JSON.stringify({ id: 'a b' }));
  });

  it('decides route, key and declared size from the head, before any body', async () => {
    const head = { method: 'POST', path: '/small', query: new URLSearchParams() };
    expect(await router.admit({ ...head, headers: {} })).toMatchObject({ kind: 'answer', response: { status: 401 } });
    expect(await router.admit({ ...head, path: '/nowhere', headers: {} })).toMatchObject({ kind: 'answer', response: { status: 404 } });
    expect(
      await router.admit({ ...head, headers: { authorization: `Bearer ${key}`, 'content-length': String(256 * 1024 + 1) } }),
    ).toMatchObject({
      kind: 'answer',
      response: { status: 413 },
    });
    // The key is checked before the size: an anonymous caller learns nothing about limits.
    expect(await router.admit({ ...head, headers: { 'content-length': '999999999' } })).toMatchObject({
      kind: 'answer',
      response: { status: 401 },
    });
    expect(await router.admit({ ...head, headers: { authorization: `Bearer ${key}`, 'content-length': '10' } })).toMatchObject({
      kind: 'read',
      maxBodyBytes: 256 * 1024,
    });
  });

  it('applies the route body limit to a body already read (the Lambda path)', async () => {
    expect((await router(request('POST', '/upload', { body: Buffer.alloc(10) }))).status).toBe(200);
    const over = await router(request('POST', '/upload', { body: Buffer.alloc(11) }));
    expect(over.status).toBe(413);
    expect(JSON.parse(String(over.body))).toMatchObject({ error: { code: 'payload_too_large' } });
  });

  it('marks every JSON answer nosniff and no-store, on the router and on the Lambda path', async () => {
    for (const answer of [
      await router(request('GET', '/things/1')),
      await router(request('GET', '/nowhere')),
      await router(request('GET', '/things/1', { headers: {} })),
    ]) {
      expect(answer.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    }
    const event = {
      rawPath: '/things/1',
      headers: { authorization: `Bearer ${key}` },
      requestContext: { http: { method: 'GET' } },
    } as unknown as APIGatewayProxyEventV2;
    const result = toLambdaResult(await router(fromLambdaEvent(event)));
    expect(result.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    // An answer built without json() gets them from the adapter too.
    expect(toLambdaResult({ status: 503, body: 'starting' }).headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    // An answer that chose its own cache policy keeps it.
    expect(toLambdaResult({ status: 200, headers: { 'Cache-Control': 'max-age=60' } }).headers).toEqual({
      'Cache-Control': 'max-age=60',
      'x-content-type-options': 'nosniff',
    });
  });
});
