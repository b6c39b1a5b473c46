/**
 * MCP tool names: the strictest widely used clients take letters, digits, `_` and `-`, at most
 * 64 characters. One rule for every tool: the tool id with `.` replaced by `_`
 * (`github.create_issue` -> `github_create_issue`). The way back is a lookup in the catalog,
 * not the reverse replacement, since ids contain `_` themselves.
 */
export const mcpToolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

export function mcpToolName(toolId: string): string {
  return toolId.replaceAll('.', '_');
}
