import type { LocalRuntime } from './runtime';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where to open the console: at `PUBLIC_URL` when that is this machine, so that the way back
 * from the connect page lands on the origin the browser signed in at; else where it listens.
 */
function consoleUrl(runtime: Pick<LocalRuntime, 'url' | 'config'>): string {
  const publicUrl = new URL(runtime.config.publicUrl);
  const own = new URL(runtime.url);
  return loopbackHosts.has(publicUrl.hostname) && publicUrl.port === own.port ? runtime.config.publicUrl : runtime.url;
}

/**
 * The lines `npm start` prints on stderr once it listens. With WEBHOOK_PROXY_URL the hooks
 * point at the relay channel, not at this runtime, so the webhook line shows the relay URL
 * the code host posts to.
 */
export function startBanner(runtime: Pick<LocalRuntime, 'url' | 'config' | 'keyFile'>): string[] {
  const { config } = runtime;
  const relay = config.webhookProxyUrl;
  const lines = [
    `Agent integrations running at ${runtime.url}`,
    `  data dir:        ${config.dataDir}`,
    runtime.keyFile
      ? `  platform key:    in ${runtime.keyFile} (field platformApiKey); send it as "Authorization: Bearer <key>"`
      : '  platform key:    from PLATFORM_API_KEY',
    relay
      ? `  webhook URLs:    ${relay}${relay.includes('?') ? '&' : '?'}endpoint=<endpointId> (the relay; replayed into ${runtime.url}/webhooks/github/<endpointId>)`
      : `  webhook URLs:    ${config.publicUrl}/webhooks/github/<endpointId>`,
    `  agent runtime:   ${config.agentRuntimeUrl ?? 'not set (AGENT_RUNTIME_URL): trigger events are logged'}`,
    `  console:         ${consoleUrl(runtime)}/ (sign in with the platform key)`,
  ];
  if (relay) lines.push(`  webhook relay:   ${relay} (WEBHOOK_PROXY_URL; for development: see docs/sandbox.md)`);
  return lines;
}
