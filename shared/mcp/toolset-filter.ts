import { isToolset, type Toolset, toolsets } from '../tools/toolsets';

/**
 * Which toolsets an MCP request asks for, as GitHub's own MCP server takes them: the path
 * `/mcp/x/{toolset}` (one), the `X-MCP-Toolsets` header (comma-separated), or, here also,
 * `?toolsets=` in the URL. `all` is every toolset; `default` is GitHub's default set. Nothing
 * asked: every toolset (what `/mcp` has always listed). An unknown name is refused naming it,
 * where GitHub's server drops it silently: a misspelt toolset would otherwise list nothing.
 */

export const toolsetHeader = 'x-mcp-toolsets';

/** GitHub's MCP server's default toolsets. */
const defaultSet: readonly Toolset[] = ['context', 'repos', 'issues', 'pull_requests', 'users'];

export type ToolsetChoice = { ok: true; toolsets?: ReadonlySet<Toolset> } | { ok: false; message: string };

function names(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
}

/** The toolsets asked for by the path, the header and the query together (undefined: no filter). */
export function chooseToolsets(asked: { path?: string; header?: string; query?: string | null }): ToolsetChoice {
  const wanted = [...names(asked.path), ...names(asked.header), ...names(asked.query ?? undefined)];
  if (wanted.length === 0 || wanted.includes('all')) return { ok: true };
  const chosen = new Set<Toolset>();
  const unknown: string[] = [];
  for (const name of wanted) {
    if (name === 'default') for (const t of defaultSet) chosen.add(t);
    else if (isToolset(name)) chosen.add(name);
    else unknown.push(name);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `toolsets: unknown toolset ${unknown.map((n) => `"${n.slice(0, 50)}"`).join(', ')}; known: ${toolsets.join(', ')}, all, default`,
    };
  }
  return { ok: true, toolsets: chosen };
}
