import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { json } from '../../shared/http/responses';
import { openApiDocument } from '../../shared/http/openapi';
import type { Route } from '../../shared/http/types';
import { describedRoutes, openApiDocumentPath, openApiDocumentText } from '../../local/openapi-document';
import { SandboxInbox } from '../../local/sandbox/inbox';
import { loadConfig } from '../../shared/config/config';
import { createJsonLogger } from '../../shared/observability/logger';
import { answerChecker } from '../helpers/openapi-answers';

/**
 * The API document is generated from the routes' own specs (the zod schemas the handlers
 * check with), every route has one, and the committed docs/openapi.json (what
 * `GET /openapi.json` serves) is what the routes generate today.
 */
const parts = { title: 't', version: '0', description: 'd' };

describe('the OpenAPI document', () => {
  it('has a spec for every route the local runtime serves, the sandbox included', () => {
    const sandbox = new SandboxInbox().routes({ config: loadConfig({}), logger: createJsonLogger({ level: 'SILENT', write: () => {} }) });
    const missing = [...describedRoutes(), ...sandbox].filter((r) => !r.spec).map((r) => `${r.method} ${r.pattern}`);
    expect(missing).toEqual([]);
  });

  it('refuses to be generated while a route has no spec, naming the route', () => {
    const bare: Route = { method: 'GET', pattern: '/widgets/:id', auth: 'platform', handle: async () => json(200, {}) };
    expect(() => openApiDocument([bare], parts)).toThrow('GET /widgets/:id has no spec');
  });

  it('leaves local-only routes out and describes the rest with their auth, parameters and error codes', () => {
    const doc = JSON.parse(openApiDocumentText());
    const paths = Object.keys(doc.paths);
    expect(paths.filter((p) => p === '/' || /^\/(console|admin|sandbox)/.test(p))).toEqual([]);
    const get = doc.paths['/connections/{id}'].get;
    expect(get.security).toEqual([{ platformKey: [] }]);
    expect(get.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
    expect(get.responses['404'].content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual([
      'connection_not_found',
    ]);
    expect(get.responses['401'].description).toContain('unauthorized');
    expect(doc.paths['/subscriptions'].post.security).toEqual([{ platformKey: [] }, { scopedKey: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.webhooks.triggerEvent.post.parameters.map((p: { name: string }) => p.name)).toContain('X-Signature-256');
  });

  it("passes the two rules Redocly's default ruleset holds as errors here: servers named, and security on every operation, the signed trigger event included", () => {
    const doc = JSON.parse(readFileSync(openApiDocumentPath, 'utf8')) as {
      servers?: Array<{ url?: string }>;
      security?: unknown[];
      paths: Record<string, Record<string, { security?: unknown[] }>>;
      webhooks: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
      components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
    };
    // no-empty-servers
    expect(doc.servers?.length ?? 0).toBeGreaterThan(0);
    expect(doc.servers?.every((s) => typeof s.url === 'string' && s.url.length > 0)).toBe(true);
    // security-defined: an operation without `security` (and no document-wide one) is an error
    const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
    const undefinedSecurity = [...Object.entries(doc.paths), ...Object.entries(doc.webhooks).map(([k, v]) => [`webhook ${k}`, v] as const)]
      .flatMap(([path, item]) => Object.entries(item).map(([m, op]) => [`${m} ${path}`, m, op] as const))
      .filter(([, m, op]) => methods.includes(m) && op.security === undefined && doc.security === undefined)
      .map(([name]) => name);
    expect(undefinedSecurity).toEqual([]);
    // The trigger event is authenticated by its signature header, named as a scheme the document defines.
    const signed = doc.webhooks.triggerEvent?.post?.security ?? [];
    const schemes = signed.flatMap((r) => Object.keys(r));
    expect(schemes).toEqual(['triggerEventSignature']);
    expect(doc.components.securitySchemes.triggerEventSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Signature-256' });
  });

  it('is committed as docs/openapi.json exactly as the routes generate it (npm run openapi)', () => {
    expect(readFileSync(openApiDocumentPath, 'utf8')).toBe(openApiDocumentText());
  });

  it('reports an answer the document does not allow: an undocumented field, status or media type', () => {
    const checker = answerChecker(JSON.parse(openApiDocumentText()));
    const headers = { 'content-type': 'application/json' };
    const ok = { status: 'ok' };
    expect(checker.check('GET', '/healthz', { status: 200, headers, body: JSON.stringify(ok) })).toEqual([]);
    expect(checker.check('GET', '/healthz', { status: 200, headers, body: JSON.stringify({ ...ok, extra: 1 }) })).not.toEqual([]);
    expect(checker.check('GET', '/healthz', { status: 418, headers, body: '{}' })[0]).toContain('status not documented');
    expect(checker.check('GET', '/healthz', { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' })[0]).toContain(
      'content-type',
    );
    const wrongCode = { error: { code: 'forbidden', message: 'x' } };
    expect(checker.check('GET', '/connections/{id}', { status: 404, headers, body: JSON.stringify(wrongCode) })).not.toEqual([]);
  });
});
