import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { json } from '../../shared/http/responses';
import { bindRoutes, type RouteTable } from '../../shared/http/route-table';
import { createRouter } from '../../shared/http/router';
import type { HttpRequest } from '../../shared/http/types';

const key = 'router-test-key-of-at-least-32-characters';

/** Routes as data: each declares its body, and the router checks it before any handler runs. */
const table = {
  createWidget: {
    method: 'POST',
    pattern: '/widgets',
    auth: 'platform',
    spec: {
      summary: 'Make a widget',
      tags: ['widgets'],
      body: z.object({ name: z.string().min(1), size: z.number().int().optional() }).strict(),
      answers: { 201: { description: 'Made' } },
      errors: ['invalid_input'],
    },
  },
  signedDelivery: {
    method: 'POST',
    pattern: '/deliveries',
    auth: 'none',
    rawBody: true,
    spec: { summary: 'A signed delivery', tags: ['w'], body: z.record(z.string(), z.unknown()), answers: {}, errors: [] },
  },
  ownShape: {
    method: 'POST',
    pattern: '/own',
    auth: 'none',
    accepts: z.looseObject({}, { error: 'expected an object' }),
    refuseBody: (e) => json(418, { ok: false, code: e.code }),
    spec: { summary: 'Answers in its own shape', tags: ['w'], body: z.object({ a: z.string() }), answers: {}, errors: [] },
  },
} satisfies RouteTable;

const seen: unknown[] = [];
const router = createRouter(
  bindRoutes(table, {
    createWidget: async (req) => {
      seen.push(req.input);
      return json(201, { name: req.input.name });
    },
    signedDelivery: async (req) => json(200, { input: req.input ?? null, bytes: req.body.toString('utf8') }),
    ownShape: async (req) => json(200, { input: req.input }),
  }),
  { platformApiKey: async () => key },
);

const post = (path: string, body: string): HttpRequest => ({
  method: 'POST',
  path,
  headers: { authorization: `Bearer ${key}` },
  query: new URLSearchParams(),
  body: Buffer.from(body),
});
const answerOf = async (req: HttpRequest) => {
  const answer = await router(req);
  return { status: answer.status, body: JSON.parse(String(answer.body)) };
};

describe('the router checks the body a route declares', () => {
  it('hands the handler the checked body as input', async () => {
    seen.length = 0;
    expect(await answerOf(post('/widgets', '{"name":"w","size":2}'))).toEqual({ status: 201, body: { name: 'w' } });
    expect(seen).toEqual([{ name: 'w', size: 2 }]);
  });

  it('refuses a bad body before the handler runs, naming each bad field', async () => {
    seen.length = 0;
    const bad = await answerOf(post('/widgets', '{"name":"","colour":"red"}'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_input');
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['(body)', 'name']);
    const notJson = await answerOf(post('/widgets', '{nope'));
    expect(notJson.body.error).toMatchObject({ message: 'Request body is not valid JSON', details: { fields: [{ field: '(body)' }] } });
    // An empty body is `{}`: here it lacks the name.
    expect((await answerOf(post('/widgets', ''))).body.error.details.fields).toEqual([{ field: 'name', message: 'is required (string)' }]);
    expect(seen).toEqual([]);
  });

  it('leaves a raw body alone: not parsed, not checked, the bytes as sent', async () => {
    expect(await answerOf(post('/deliveries', 'not json at all'))).toEqual({
      status: 200,
      body: { input: null, bytes: 'not json at all' },
    });
  });

  it("checks with the route's looser schema when it has one, and answers a refusal in the route's own shape", async () => {
    expect(await answerOf(post('/own', '{"b":1}'))).toEqual({ status: 200, body: { input: { b: 1 } } });
    expect(await answerOf(post('/own', '[1]'))).toEqual({ status: 418, body: { ok: false, code: 'invalid_input' } });
  });
});
