import { describe, expect, it } from 'vitest';
import { sandboxBanner } from '../../local/sandbox/banner';
import type { RunningSandbox } from '../../local/sandbox/sandbox';
import type { Connection } from '../../shared/domain/model';

const connection = (id: string) => ({ id }) as Connection;
const sandbox: RunningSandbox = {
  githubUrl: 'http://127.0.0.1:4001',
  contentsnareUrl: 'http://127.0.0.1:4002',
  demo: { github: connection('conn_gh'), contentsnare: connection('conn_cs') },
};
const base = 'http://127.0.0.1:3000';
const banner = (agentRuntimeUrl: string | undefined) =>
  sandboxBanner({ url: base, config: { platformApiKey: 'k', dataDir: '/d', agentRuntimeUrl }, sandbox }).join('\n');

describe('the sandbox banner', () => {
  it('shows the Content Snare tool step the sandbox guide shows, on the demo connection', () => {
    const text = banner(`${base}/sandbox/agent-runtime`);
    expect(text).toContain(`${base}/tools/contentsnare.create_client/invoke`);
    expect(text).toContain('"connectionId":"conn_cs","input":{"name":"Ann Example","email":"ann@example.com"}');
  });

  it('calls the inbox the agent runtime while trigger events go to it', () => {
    expect(banner(`${base}/sandbox/agent-runtime`)).toContain(`inbox (agent runtime):   ${base}/sandbox/inbox`);
  });

  it('with AGENT_RUNTIME_URL set elsewhere, names where events go and says the inbox receives none', () => {
    const text = banner('https://agents.example/hook');
    expect(text).not.toContain('inbox (agent runtime)');
    expect(text).toContain('agent runtime:           https://agents.example/hook (AGENT_RUNTIME_URL)');
    expect(text).toContain(`inbox:                   ${base}/sandbox/inbox (receives nothing while AGENT_RUNTIME_URL is set)`);
  });

  it("gives the CLI the runtime's address when it is not the CLIs' default (PORT set)", () => {
    const elsewhere = sandboxBanner({
      url: 'http://127.0.0.1:4123',
      config: { platformApiKey: 'k', dataDir: '/d', agentRuntimeUrl: undefined },
      sandbox,
    });
    const trigger = elsewhere.find((l) => l.includes('npm run trigger'));
    expect(trigger).toContain('--url http://127.0.0.1:4123');
    expect(elsewhere.filter((l) => l.includes('curl')).every((l) => !l.includes(':3000'))).toBe(true);
    expect(banner(undefined)).not.toContain('--url');
  });
});
