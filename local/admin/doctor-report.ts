import type { ProviderContract } from '../../shared/ports/provider-contract';
import type { AppContext } from '../../shared/ports/app-context';
import type { Config } from '../../shared/config/config';
import type { Connection, Provider } from '../../shared/domain/model';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { isNonPublicHost } from '../../shared/subscriptions/public-url-check';

export type Verdict = 'ok' | 'warn' | 'FAIL' | 'info';

export interface DoctorCheck {
  verdict: Verdict;
  text: string;
}

/** What the running runtime reports of itself (`GET /admin/doctor`): its checks, and its connections with their kind. */
export interface DoctorReport {
  checks: DoctorCheck[];
  connections: Array<Connection & { kind: string }>;
}

/** What an answer from `url` says of its reach: anything below 500 is an answer. */
export async function reachable(fetchImpl: typeof fetch, url: string, init: RequestInit = {}): Promise<{ ok: boolean; detail: string }> {
  try {
    const res = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(5000), redirect: 'manual' });
    await res.body?.cancel().catch(() => {});
    return { ok: res.status < 500, detail: `answered ${res.status}` };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, detail: cause?.code ?? cause?.message ?? (e as Error).message };
  }
}

/** Whether the code host can send webhooks to this runtime: through the relay, to PUBLIC_URL, or not at all. */
async function webhookReach(config: Config, fetchImpl: typeof fetch): Promise<DoctorCheck> {
  const publicIsLocal = isNonPublicHost(config.publicUrl);
  if (config.webhookProxyUrl) {
    const relay = await reachable(fetchImpl, config.webhookProxyUrl, { headers: { accept: 'text/event-stream' } });
    return {
      verdict: relay.ok ? 'ok' : 'FAIL',
      text: `WEBHOOK_PROXY_URL ${config.webhookProxyUrl}: ${relay.ok ? 'reachable; hooks point there and its deliveries are replayed here' : `not reachable (${relay.detail})`}`,
    };
  }
  if (publicIsLocal && !isNonPublicHost(config.github.apiUrl)) {
    return {
      verdict: 'warn',
      text: `PUBLIC_URL ${config.publicUrl} is not reachable from the Internet: ${config.github.apiUrl} will not deliver webhooks there (subscribing answers public_url_unreachable). Set PUBLIC_URL to a tunnel, or WEBHOOK_PROXY_URL to a smee.io channel (docs/sandbox.md); \`npm run dev\` needs neither`,
    };
  }
  if (publicIsLocal)
    return { verdict: 'ok', text: `PUBLIC_URL ${config.publicUrl}: local, and so is the code host (${config.github.apiUrl})` };
  const health = await reachable(fetchImpl, `${config.publicUrl}/healthz`);
  return {
    verdict: health.ok ? 'ok' : 'FAIL',
    text: `PUBLIC_URL ${config.publicUrl}: ${health.ok ? `reachable (${health.detail})` : `not reachable (${health.detail}); is the tunnel running?`}`,
  };
}

/** One line per provider the runtime holds: its API, and whether its OAuth client is set. */
function providerLine(config: Config, def: ProviderContract['oauth']): DoctorCheck {
  const oauth = def.clientId(config) ? 'configured' : `not configured (${def.clientIdEnv}/${def.clientSecretEnv})`;
  return { verdict: 'info', text: `${def.displayName}: ${def.apiBase(config)}; OAuth ${oauth}` };
}

/**
 * `GET /admin/doctor`: what the running runtime knows of itself, with the settings it really
 * runs with (its `.env`, its generated secrets), for `npm run doctor`.
 */
export async function runtimeDoctorReport(ctx: AppContext, fetchImpl: typeof fetch): Promise<DoctorReport> {
  const config = ctx.config;
  const checks: DoctorCheck[] = [
    { verdict: 'ok', text: `runtime: running at ${config.publicUrl} (port ${config.port})` },
    await webhookReach(config, fetchImpl),
    ...(Object.keys(ctx.providers) as Provider[]).map((p) => providerLine(config, ctx.providers[p].oauth)),
    {
      verdict: 'info',
      text: `agent runtime: ${config.agentRuntimeUrl ?? 'AGENT_RUNTIME_URL not set: events are logged (npm run dev sends them to its inbox)'}`,
    },
  ];
  const connections = (await new ConnectionRepo(ctx.store).list()).map((c) => ({ ...c, kind: ctx.providers[c.provider].connectionKind }));
  return { checks, connections };
}
