import { applicableScenarios, runConformance } from '../test/helpers/mcp-conformance';

/**
 * `npm run mcp:conformance`: the official MCP conformance suite's server scenarios that apply
 * here, against a running server. MCP_URL (default http://127.0.0.1:3000/mcp) and
 * PLATFORM_API_KEY (or a scoped key) say where and with what; extra arguments name scenarios.
 */
const url = process.env.MCP_URL ?? 'http://127.0.0.1:3000/mcp';
const key = process.env.PLATFORM_API_KEY;
if (!key) {
  process.stderr.write('Set PLATFORM_API_KEY (the key of the server at MCP_URL).\n');
  process.exit(2);
}
const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : applicableScenarios;
const { checks } = await runConformance(url, key, scenarios);
for (const c of checks) {
  if (c.status === 'INFO') continue;
  process.stdout.write(`${c.status.padEnd(8)} ${c.scenario} / ${c.id}${c.errorMessage ? `: ${c.errorMessage}` : ''}\n`);
}
const failed = checks.filter((c) => c.status === 'FAILURE');
process.stdout.write(`${checks.length - failed.length} of ${checks.length} checks passed\n`);
process.exitCode = failed.length > 0 ? 1 : 0;
