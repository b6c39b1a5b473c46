import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config';
import type { AppContext } from '../../shared/ports/app-context';
import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import { localJobs } from '../../local/jobs';
import { startBanner } from '../../local/start-banner';

const base = { PLATFORM_API_KEY: 'platform-key-for-tests-0123456789abcdef' };

function sweepJob(env: Record<string, string>) {
  const ctx = { config: loadConfig({ ...base, ...env }) } as AppContext;
  return localJobs(ctx, { queue: {} } as LocalQueues).find((j) => j.name === 'redelivery-sweep');
}

describe('the local runtime at start', () => {
  it('runs the redelivery sweep every SWEEP_INTERVAL_SECONDS, five minutes by default, as the poller every POLL_INTERVAL_SECONDS', () => {
    expect(sweepJob({})?.idleMs).toBe(300_000);
    expect(sweepJob({ SWEEP_INTERVAL_SECONDS: '20' })?.idleMs).toBe(20_000);
    expect(() => loadConfig({ ...base, SWEEP_INTERVAL_SECONDS: '0' })).toThrow(/SWEEP_INTERVAL_SECONDS/);
  });

  it('shows the relay channel in its banner when WEBHOOK_PROXY_URL is set, without the trailing slash smee.io would answer 404 to', () => {
    const runtime = { url: 'http://127.0.0.1:3000', keyFile: undefined };
    const relayed = startBanner({ ...runtime, config: loadConfig({ ...base, WEBHOOK_PROXY_URL: 'https://smee.io/AbC123/' }) });
    expect(relayed).toContain('  webhook relay:   https://smee.io/AbC123 (WEBHOOK_PROXY_URL; for development: see docs/sandbox.md)');
    expect(relayed.find((l) => l.includes('webhook URLs'))).toContain('https://smee.io/AbC123?endpoint=<endpointId>');
    const direct = startBanner({ ...runtime, config: loadConfig(base) });
    expect(direct.some((l) => l.includes('relay'))).toBe(false);
    expect(direct.find((l) => l.includes('webhook URLs'))).toContain('/webhooks/github/<endpointId>');
  });

  it("shows the console at PUBLIC_URL's address when that is this machine, so the way back from the connect page finds the browser signed in", () => {
    const runtime = { url: 'http://127.0.0.1:3000', keyFile: undefined };
    const consoleLine = (env: Record<string, string>) =>
      startBanner({ ...runtime, config: loadConfig({ ...base, ...env }) }).find((l) => l.includes('console:'));
    expect(consoleLine({})).toContain('http://localhost:3000/ (sign in');
    expect(consoleLine({ PUBLIC_URL: 'https://tunnel.example.com' })).toContain('http://127.0.0.1:3000/ (sign in');
    expect(consoleLine({ PUBLIC_URL: 'http://localhost:4000' })).toContain('http://127.0.0.1:3000/ (sign in');
  });
});
