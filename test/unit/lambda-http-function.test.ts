import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaHttpFunction } from '../../shared/http/lambda-http-function';
import type { Route } from '../../shared/http/types';
import type { Logger } from '../../shared/observability/logger';

function event(method: string, path: string, headers: Record<string, string> = {}): APIGatewayProxyEventV2 {
  return {
    rawPath: path,
    rawQueryString: '',
    headers,
    isBase64Encoded: false,
    requestContext: { http: { method } },
  } as unknown as APIGatewayProxyEventV2;
}

function recordingLogger(lines: Array<{ message: string; attrs?: Record<string, unknown> }>): Logger {
  const log = (message: string, attrs?: Record<string, unknown>) => void lines.push({ message, ...(attrs ? { attrs } : {}) });
  return { debug: log, info: log, warn: log, error: log, child: () => recordingLogger(lines) };
}

describe('lambdaHttpFunction: one Lambda HTTP handler for every HTTP role', () => {
  const routes: Route[] = [
    { method: 'GET', pattern: '/ping', auth: 'none', handle: async () => ({ status: 200, body: 'pong' }) },
    {
      method: 'GET',
      pattern: '/boom',
      auth: 'none',
      handle: async () => {
        throw new Error('kaput');
      },
    },
    { method: 'GET', pattern: '/private', auth: 'platform', handle: async () => ({ status: 200, body: 'secret' }) },
  ];

  it('routes the event, builds its routes once per container, and logs unexpected failures with the role message', async () => {
    const lines: Array<{ message: string; attrs?: Record<string, unknown> }> = [];
    let contexts = 0;
    let builds = 0;
    const handler = lambdaHttpFunction({
      context: async () => {
        contexts += 1;
        return { platformApiKey: async () => 'k'.repeat(40), logger: recordingLogger(lines) };
      },
      routes: () => {
        builds += 1;
        return routes;
      },
      failure: 'role request failed',
    });
    expect(await handler(event('GET', '/ping'))).toMatchObject({ statusCode: 200, body: 'pong' });
    expect((await handler(event('GET', '/boom'))).statusCode).toBe(500);
    expect((await handler(event('GET', '/private'))).statusCode).toBe(401);
    expect(await handler(event('GET', '/private', { authorization: `Bearer ${'k'.repeat(40)}` }))).toMatchObject({
      statusCode: 200,
      body: 'secret',
    });
    expect(builds).toBe(1);
    expect(contexts).toBe(4);
    expect(lines).toEqual([{ message: 'role request failed', attrs: { method: 'GET', path: '/boom', error: expect.any(Error) } }]);
  });
});
