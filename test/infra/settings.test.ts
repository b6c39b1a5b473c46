import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../../infra/settings';

const ctx = (values: Record<string, unknown>) => (key: string) => values[key];

describe('deploy settings', () => {
  it('defaults to the dev stage, retained data and a 30-day log retention', () => {
    const s = readSettings(ctx({}), {});
    expect(s).toMatchObject({ stage: 'dev', destroyData: false, logRetentionDays: 30 });
    expect(s.publicUrl).toBeUndefined();
  });

  it('prefers CDK context to the environment and ignores blank values', () => {
    const s = readSettings(ctx({ stage: 'prod', alarmEmail: 'oncall@example.com', agentRuntimeUrl: '  ' }), {
      STAGE: 'staging',
      AGENT_RUNTIME_URL: 'https://agents.example.com/events',
      GITHUB_CLIENT_ID: 'Iv1.from-env',
    });
    expect(s.stage).toBe('prod');
    expect(s.agentRuntimeUrl).toBe('https://agents.example.com/events');
    expect(s.githubClientId).toBe('Iv1.from-env');
  });

  it('reads flags given as -c strings', () => {
    expect(readSettings(ctx({ destroyData: 'true' }), {}).destroyData).toBe(true);
    expect(readSettings(ctx({ destroyData: 'false' }), {}).destroyData).toBe(false);
  });

  it('lists every bad setting at once', () => {
    let error: unknown;
    try {
      readSettings(ctx({ stage: 'Prod_1', publicUrl: 'not a url', alarmEmail: 'nobody' }), {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    const problems = (error as SettingsError).problems.join('\n');
    expect(problems).toMatch(/^stage:/m);
    expect(problems).toMatch(/^publicUrl:/m);
    expect(problems).toMatch(/^alarmEmail:/m);
  });

  it('takes webhooks at 1,000 requests a second unless told more, and refuses less, naming the setting', () => {
    expect(readSettings(ctx({}), {}).webhookRateLimit).toBe(1000);
    expect(readSettings(ctx({}), { WEBHOOK_RATE_LIMIT: '2500' }).webhookRateLimit).toBe(2500);
    expect(() => readSettings(ctx({ webhookRateLimit: '50' }), {})).toThrow(/webhookRateLimit: at least 1000/);
  });
});
