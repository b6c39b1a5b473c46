import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { synthStack } from './synth-stack';

/**
 * `GET /healthz` on AWS: the HTTP API sends it to one function, and that function's own
 * handler (functions/<name>/handler.ts, as deployed) must answer it, with no key and no
 * I/O. The two halves are tied by the template: the route names the function.
 */
const savedEnv = { ...process.env };

beforeAll(() => {
  Object.assign(process.env, {
    AWS_REGION: 'local',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    // Never read: /healthz needs no key, touches no table and no secret.
    PLATFORM_API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:local:000000000000:secret:never-read',
    TABLE_NAME: 'never-read',
    STAGE: 'test',
    LOG_LEVEL: 'SILENT',
  });
});

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

let devStack: ReturnType<typeof synthStack> | undefined;
/** The stack of stage dev, synthesized once for the file: its tests only read the template. */
function devTemplate(): ReturnType<typeof synthStack>['template'] {
  devStack ??= synthStack({ stage: 'dev' });
  return devStack.template;
}

/** The function folder behind a route of the synthesized stack. */
function functionServing(routeKey: string): string {
  const template = devTemplate();
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
  const route = Object.values(resources).find((r) => r.Type === 'AWS::ApiGatewayV2::Route' && r.Properties.RouteKey === routeKey);
  if (!route) throw new Error(`no route ${routeKey}`);
  const integrationId = (route.Properties.Target['Fn::Join'][1] as unknown[]).map((p) => (p as { Ref?: string }).Ref).find(Boolean)!;
  const fnId = resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
  const name = resources[fnId]!.Properties.FunctionName as string;
  return name.replace(/^agent-integrations-dev-/, '');
}

/** `METHOD /path` of every route the synthesized stack's HTTP API has. */
function stackRoutes(): string[] {
  const template = devTemplate();
  const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
    .map((r) => r.Properties.RouteKey as string);
}

/** A deployed handler's answer to an anonymous `GET path`. */
async function anonymousGet(name: string, path: string): Promise<{ statusCode: number; body: string }> {
  const { handler } = (await import(`../../functions/${name}/handler.ts`)) as {
    handler: (event: unknown, context: Context) => Promise<{ statusCode: number; body: string }>;
  };
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return await handler(
      {
        version: '2.0',
        rawPath: path,
        rawQueryString: '',
        headers: {},
        isBase64Encoded: false,
        requestContext: { http: { method: 'GET', path } },
      },
      { functionName: `agent-integrations-test-${name}`, awsRequestId: 'r-1' } as unknown as Context,
    );
  } finally {
    write.mockRestore();
  }
}

describe('GET /openapi.json on AWS', () => {
  const document = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));

  it('goes to a function whose deployed handler answers the committed document without a key', async () => {
    const res = await anonymousGet(functionServing('GET /openapi.json'), '/openapi.json');
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual(document);
  }, 120_000);

  it('documents every route the stack routes, and routes every documented one', () => {
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    // MCP's GET and DELETE are documented too: their 405 is what a client reads.
    expect(stackRoutes().sort()).toEqual(documented.sort());
  });
});

describe('GET /healthz on AWS', () => {
  it('goes to a function whose deployed handler answers 200 {"status":"ok"} without a key', async () => {
    const name = functionServing('GET /healthz');
    const { handler } = (await import(`../../functions/${name}/handler.ts`)) as {
      handler: (event: unknown, context: Context) => Promise<{ statusCode: number; body: string }>;
    };
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const res = await handler(
        {
          version: '2.0',
          rawPath: '/healthz',
          rawQueryString: '',
          headers: {},
          isBase64Encoded: false,
          requestContext: { http: { method: 'GET', path: '/healthz' } },
        },
        { functionName: `agent-integrations-test-${name}`, awsRequestId: 'r-1' } as unknown as Context,
      );
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
    } finally {
      write.mockRestore();
    }
  }, 120_000);
});
