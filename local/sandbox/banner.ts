import type { Config } from '../../shared/config/config';
import { inboxPath } from './inbox';
import { demo, type RunningSandbox } from './sandbox';

/** Where the CLIs look when told nothing (`local/cli/local-admin-client.ts`, PORT unset). */
const cliDefaultUrl = 'http://127.0.0.1:3000';

/** The CLIs find a runtime on another port or host only when told: the banner's commands tell them. */
function urlFlag(base: string): string {
  return base.replace(/\/+$/, '') === cliDefaultUrl ? '' : ` --url ${base}`;
}

/** The "where to look" lines of `npm run dev`: URLs, the platform key, and the first commands to run. */
export function sandboxBanner(runtime: {
  url: string;
  config: Pick<Config, 'platformApiKey' | 'dataDir' | 'agentRuntimeUrl'>;
  sandbox?: RunningSandbox;
}): string[] {
  const s = runtime.sandbox;
  if (!s) return [];
  // Under the sandbox the key is shown: it guards a loopback runtime on simulated back ends.
  const key = (runtime.config.platformApiKey ?? '').split(',')[0] ?? '';
  const base = runtime.url;
  const auth = `-H "Authorization: Bearer ${key}"`;
  // AGENT_RUNTIME_URL set by the user wins over the inbox: then the inbox is not the agent runtime.
  const agentRuntime = runtime.config.agentRuntimeUrl;
  const toInbox = agentRuntime === undefined || agentRuntime === `${base}${inboxPath}`;
  const runtimeLines = toInbox
    ? [`  inbox (agent runtime):   ${base}/sandbox/inbox`]
    : [
        `  agent runtime:           ${agentRuntime} (AGENT_RUNTIME_URL)`,
        `  inbox:                   ${base}/sandbox/inbox (receives nothing while AGENT_RUNTIME_URL is set)`,
      ];
  return [
    '',
    'Sandbox (npm run dev): simulated back ends on loopback, no account needed',
    `  simulated GitHub:        ${s.githubUrl}   (demo account ${demo.githubLogin})`,
    `  simulated Content Snare: ${s.contentsnareUrl}`,
    `  demo connections:        ${s.demo.github.id} (github), ${s.demo.contentsnare.id} (contentsnare)`,
    ...(s.demo.githubApp
      ? [`  GitHub App connection:   ${s.demo.githubApp.id} (github_app, installation ${s.demo.githubApp.installation?.id})`]
      : []),
    `  data dir:                ${runtime.config.dataDir} (the sandbox's own; DATA_DIR overrides it)`,
    ...runtimeLines,
    `  platform key:            ${key}`,
    ...(s.notices ?? []).map((n) => `  note:                    ${n}`),
    '',
    'Try it (docs/sandbox.md):',
    `  export PLATFORM_API_KEY=${key}`,
    `  curl -s -X POST ${base}/subscriptions ${auth} -H 'content-type: application/json' \\`,
    `    -d '{"connectionId":"${s.demo.github.id}","trigger":"github.new_issue","agentId":"my-agent","repository":"${demo.repository}"}'`,
    `  npm run trigger -- github.new_issue --set issue.title="Hello sandbox" --wait${urlFlag(base)}`,
    `  curl -s ${base}/sandbox/inbox ${auth}`,
    `  curl -s -X POST ${base}/tools/github.create_issue/invoke ${auth} -H 'content-type: application/json' \\`,
    `    -d '{"connectionId":"${s.demo.github.id}","input":{"owner":"octocat","repo":"hello-world","title":"From the sandbox"}}'`,
    `  curl -s -X POST ${base}/tools/github.api_call/invoke ${auth} -H 'content-type: application/json' \\`,
    `    -d '{"connectionId":"${s.demo.github.id}","input":{"method":"GET","endpoint":"/repos/${demo.repository}/issues","query":{"state":"open"}}}'`,
    `  curl -s -X POST ${base}/tools/contentsnare.create_client/invoke ${auth} -H 'content-type: application/json' \\`,
    `    -d '{"connectionId":"${s.demo.contentsnare.id}","input":{"name":"Ann Example","email":"ann@example.com"}}'`,
    `  curl -s ${base}/triggers ${auth}    # every trigger, its filters and an example event`,
  ];
}
