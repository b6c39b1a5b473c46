import { describe, expect, it } from 'vitest';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import type { Connection } from '../../shared/domain/model';
import { chooseConnection, mcpOutputSchema, mcpTools } from '../../shared/mcp/mcp-tools';
import { toolBehaviour } from '../../shared/mcp/tool-annotations';
import { mcpToolName, mcpToolNamePattern } from '../../shared/mcp/tool-names';
import { catalog } from '../../shared/tools/catalog';

const entries = catalog(allProviderTools());

function connection(id: string, provider: Connection['provider'], label?: string): Connection {
  return {
    id,
    provider,
    label,
    accountLogin: `${id}-login`,
    authMethod: 'token',
    status: 'connected',
    repositories: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

describe('MCP tool names', () => {
  it('every step has a name the strictest clients accept, and no two steps share one', () => {
    const names = entries.map((e) => mcpToolName(e.id));
    for (const name of names) expect(name).toMatch(mcpToolNamePattern);
    expect(new Set(names).size).toBe(names.length);
    expect(mcpToolName('github.create_issue')).toBe('github_create_issue');
  });

  it('every step says whether it is read-only and idempotent, and nothing else is listed', () => {
    expect(Object.keys(toolBehaviour).sort()).toEqual(entries.map((e) => e.id).sort());
  });

  it('no step input already has the connection argument', () => {
    for (const e of entries) expect(Object.keys((e.inputSchema.properties as object | undefined) ?? {})).not.toContain('connectionId');
  });
});

describe('mcpTools: what an endpoint lists', () => {
  const gh1 = connection('conn_a', 'github', 'Work');
  const gh2 = connection('conn_b', 'github');
  const cs = connection('conn_c', 'contentsnare');

  it('lists only the providers with a connection in scope', () => {
    const names = mcpTools(entries, { connections: [gh1] }).map((t) => t.name);
    expect(names.every((n) => n.startsWith('github_'))).toBe(true);
    expect(names).toContain('github_api_call');
  });

  it('adds a required, enumerated connection argument only where a provider has several connections', () => {
    const tools = mcpTools(entries, { connections: [gh1, gh2, cs] });
    const gh = tools.find((t) => t.name === 'github_get_repository');
    const property = ((gh?.inputSchema.properties ?? {}) as Record<string, { enum?: string[]; description?: string }>).connectionId;
    expect(gh?.inputSchema.required).toContain('connectionId');
    expect(property?.enum).toEqual(['conn_a', 'conn_b']);
    expect(property?.description).toContain('conn_a (Work, conn_a-login)');
    expect(tools.find((t) => t.name === 'contentsnare_create_client')?.inputSchema.required).not.toContain('connectionId');
  });

  it('a pinned endpoint lists its connection only, with no connection argument', () => {
    const tools = mcpTools(entries, { connections: [gh1, gh2, cs], pinned: gh2 });
    expect(tools.every((t) => t.name.startsWith('github_'))).toBe(true);
    expect(tools.find((t) => t.name === 'github_get_repository')?.inputSchema.required ?? []).not.toContain('connectionId');
  });

  it('publishes no $schema dialect line, so a client validates with its own draft', () => {
    for (const t of mcpTools(entries, { connections: [gh1, cs] })) expect(t.inputSchema.$schema).toBeUndefined();
  });

  it('wraps an output that is not an object (nor a union of objects) as {result}, as the protocol requires an object', () => {
    expect(mcpOutputSchema({ type: 'array', items: { type: 'string' } })).toEqual({
      schema: { type: 'object', properties: { result: { type: 'array', items: { type: 'string' } } }, required: ['result'] },
      wrapped: true,
    });
    const union = {
      anyOf: [
        { type: 'object', properties: { dryRun: { const: true } } },
        { type: 'object', properties: {} },
      ],
    };
    expect(mcpOutputSchema(union)).toEqual({ schema: { type: 'object', ...union }, wrapped: false });
    expect(mcpOutputSchema({ $schema: 'x', type: 'object', properties: {} })).toEqual({
      schema: { type: 'object', properties: {} },
      wrapped: false,
    });
  });
});

describe('chooseConnection: which connection a call acts as', () => {
  const gh1 = connection('conn_a', 'github');
  const gh2 = connection('conn_b', 'github');

  it('needs no argument with one connection of the provider, and takes the argument out of the input', () => {
    expect(chooseConnection('github', { owner: 'o', repo: 'r' }, { connections: [gh1] })).toEqual({
      ok: true,
      connectionId: 'conn_a',
      input: { owner: 'o', repo: 'r' },
    });
  });

  it('names the argument and the choices when several connections could act', () => {
    const choice = chooseConnection('github', { owner: 'o' }, { connections: [gh1, gh2] });
    expect(choice).toEqual({ ok: false, message: 'connectionId: is required: one of conn_a, conn_b' });
  });

  it('refuses a connection the endpoint does not serve', () => {
    const choice = chooseConnection('github', { connectionId: 'conn_z' }, { connections: [gh1, gh2] });
    expect(choice.ok).toBe(false);
  });

  it('on a pinned endpoint always acts as the pinned connection, whatever the arguments say', () => {
    const choice = chooseConnection('github', { connectionId: 'conn_b', owner: 'o' }, { connections: [gh1], pinned: gh1 });
    expect(choice).toEqual({ ok: true, connectionId: 'conn_a', input: { owner: 'o' } });
  });
});
