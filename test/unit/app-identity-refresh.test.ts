import { GetSecretValueCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config';
import type { Logger } from '../../shared/observability/logger';
import type { Store } from '../../shared/ports';
import type { AppContext } from '../../shared/ports/app-context';
import { readSecretString } from '../../shared/adapters/aws/secrets-manager-reader';
import { appIdentityRefresh, appRecheckMs, noAppRecheckMs } from '../../shared/wiring/app-identity-refresh';
import { buildAwsCoreContext } from '../../shared/wiring/aws-core-context';
import { TestClock } from '../helpers/test-clock';

const arns = {
  GITHUB_APP_PRIVATE_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:key',
  GITHUB_APP_CLIENT_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:client',
  GITHUB_APP_WEBHOOK_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:hook',
  GITHUB_APP_IDENTITY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:identity',
};
const identity = (appId: string) => JSON.stringify({ appId, slug: `app-${appId}`, clientId: `Iv23li${appId}` });

/** Secrets Manager as the functions see it: values by ARN, every read and write in order, a failure on demand. */
class FakeSecretsManager {
  readonly values = new Map<string, string>([
    [arns.GITHUB_APP_PRIVATE_KEY_SECRET_ARN, 'placeholderkey'],
    [arns.GITHUB_APP_CLIENT_SECRET_ARN, 'placeholderclient'],
    [arns.GITHUB_APP_WEBHOOK_SECRET_ARN, 'placeholderhook'],
    // What the stack generates: letters and digits, no App.
    [arns.GITHUB_APP_IDENTITY_SECRET_ARN, 'Xq3kR8vT2mW9pL4nB7cZ1yH6'],
  ]);
  readonly calls: string[] = [];
  failNext?: Error;

  async send(command: unknown): Promise<unknown> {
    const input = (command as { input: { SecretId: string; SecretString?: string } }).input;
    const name = input.SecretId.split(':').at(-1);
    if (command instanceof PutSecretValueCommand) {
      this.calls.push(`put ${name}`);
      this.values.set(input.SecretId, input.SecretString ?? '');
      return {};
    }
    if (!(command instanceof GetSecretValueCommand)) throw new Error('unexpected command');
    this.calls.push(`get ${name}`);
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
    return { SecretString: this.values.get(input.SecretId) };
  }

  reads(name: string): number {
    return this.calls.filter((c) => c === `get ${name}`).length;
  }
}

function warnings(): { logger: Logger; lines: Array<{ message: string; attrs?: Record<string, unknown> }> } {
  const lines: Array<{ message: string; attrs?: Record<string, unknown> }> = [];
  const keep = (message: string, attrs?: Record<string, unknown>) => lines.push({ message, attrs });
  const logger = { debug: () => {}, info: () => {}, warn: keep, error: () => {}, child: () => logger } as unknown as Logger;
  return { logger, lines };
}

/** A container as lambdaAppContext builds it, on the fake Secrets Manager and a clock that moves only when told. */
function container(env: Record<string, string> = {}) {
  const sm = new FakeSecretsManager();
  const clock = new TestClock();
  const { logger, lines } = warnings();
  const ctx = buildAwsCoreContext(loadConfig({ ...arns, ...env }), {}, { store: {} as Store, secretsManager: sm, clock, logger });
  const takeApp = appIdentityRefresh({
    github: ctx.config.github,
    read: (arn) => readSecretString(sm, arn),
    now: () => clock.now(),
    logger,
  });
  return { sm, clock, ctx, takeApp, warnings: lines };
}

describe('the GitHub App taken from the identity secret into a Lambda container', () => {
  it('never reads the identity secret when the deploy settings name an App: they win', async () => {
    const c = container({ GITHUB_APP_ID: '42', GITHUB_APP_SLUG: 'deployed', GITHUB_APP_CLIENT_ID: 'Iv23lideployed' });
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, identity('7'));
    await c.takeApp();
    c.clock.advance(appRecheckMs + 1);
    await c.takeApp();
    expect(c.sm.reads('identity')).toBe(0);
    expect(c.ctx.config.github.app).toMatchObject({ appId: '42', slug: 'deployed' });
  });

  it('reads at the cold start, finds no App in the generated value (no warning), and takes one made later once a minute has passed', async () => {
    const c = container();
    await c.takeApp();
    expect(c.ctx.config.github.app).toBeUndefined();
    expect(await c.ctx.githubAppSecret('webhookSecret')).toBeUndefined();
    c.sm.values.set(arns.GITHUB_APP_WEBHOOK_SECRET_ARN, 'new-hook-secret');
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, identity('7'));
    c.clock.advance(noAppRecheckMs - 1);
    await c.takeApp();
    expect(c.ctx.config.github.app).toBeUndefined();
    expect(c.sm.reads('identity')).toBe(1);
    c.clock.advance(1);
    await c.takeApp();
    expect(c.ctx.config.github.app).toMatchObject({
      appId: '7',
      slug: 'app-7',
      clientId: 'Iv23li7',
      webhookSecretArn: arns.GITHUB_APP_WEBHOOK_SECRET_ARN,
      privateKeySecretArn: arns.GITHUB_APP_PRIVATE_KEY_SECRET_ARN,
    });
    expect(await c.ctx.githubAppSecret('webhookSecret')).toBe('new-hook-secret');
    expect(c.warnings).toEqual([]);
  });

  it('reads JSON of another shape as no App, with a warning naming the field at fault', async () => {
    const c = container();
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, JSON.stringify({ appId: '7', slug: 'app-7' }));
    await c.takeApp();
    expect(c.ctx.config.github.app).toBeUndefined();
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]?.message).toMatch(/identity secret holds no App/);
    expect(JSON.stringify(c.warnings[0]?.attrs)).toContain('clientId');
  });

  it('keeps the App it has when a read fails (throttled, denied), logs a warning, and tries again at the next interval', async () => {
    const c = container();
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, identity('7'));
    await c.takeApp();
    const app = c.ctx.config.github.app;
    expect(app?.appId).toBe('7');
    c.clock.advance(appRecheckMs);
    c.sm.failNext = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    await expect(c.takeApp()).resolves.toBeUndefined();
    expect(c.ctx.config.github.app).toBe(app);
    expect(c.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/could not be read/)]);
    // Not again before the interval, then again after it.
    c.clock.advance(appRecheckMs - 1);
    await c.takeApp();
    expect(c.sm.reads('identity')).toBe(2);
    c.clock.advance(1);
    await c.takeApp();
    expect(c.sm.reads('identity')).toBe(3);
  });

  it('a failed first read leaves no App and tries again a minute later', async () => {
    const c = container();
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, identity('7'));
    c.sm.failNext = Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' });
    await c.takeApp();
    expect(c.ctx.config.github.app).toBeUndefined();
    c.clock.advance(noAppRecheckMs);
    await c.takeApp();
    expect(c.ctx.config.github.app?.appId).toBe('7');
  });

  it('keeps the same App (and the secrets it read) when the identity is unchanged, and switches to a replaced App with fresh secret readers', async () => {
    const c = container();
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, identity('7'));
    c.sm.values.set(arns.GITHUB_APP_WEBHOOK_SECRET_ARN, 'hook-of-7');
    await c.takeApp();
    const first = c.ctx.config.github.app;
    expect(await c.ctx.githubAppSecret('webhookSecret')).toBe('hook-of-7');

    // The same App read again: the object and its cached secret stay (no read of the webhook secret).
    c.clock.advance(appRecheckMs);
    await c.takeApp();
    expect(c.ctx.config.github.app).toBe(first);
    expect(await c.ctx.githubAppSecret('webhookSecret')).toBe('hook-of-7');
    expect(c.sm.reads('hook')).toBe(1);

    // An App made in its place: not taken before five minutes, then taken with its own secrets.
    c.sm.values.set(arns.GITHUB_APP_WEBHOOK_SECRET_ARN, 'hook-of-8');
    c.sm.values.set(arns.GITHUB_APP_IDENTITY_SECRET_ARN, identity('8'));
    c.clock.advance(appRecheckMs - 1);
    await c.takeApp();
    expect(c.ctx.config.github.app?.appId).toBe('7');
    c.clock.advance(1);
    await c.takeApp();
    expect(c.ctx.config.github.app).toMatchObject({ appId: '8', slug: 'app-8' });
    expect(c.ctx.config.github.app).not.toBe(first);
    expect(await c.ctx.githubAppSecret('webhookSecret')).toBe('hook-of-8');
  });
});

const keep = (ctx: { keepGithubApp?: AppContext['keepGithubApp'] }) => {
  if (!ctx.keepGithubApp) throw new Error('the AWS context keeps no App');
  return ctx.keepGithubApp;
};

describe('the App kept on AWS by the manifest flow', () => {
  const made = { appId: '9', slug: 'made', clientId: 'Iv23limade', clientSecret: 'cs', privateKey: 'pem', webhookSecret: 'wh' };

  it('writes the three secrets, then the identity last, and puts the App in use in its own container at once', async () => {
    const c = container();
    await c.takeApp();
    expect(await keep(c.ctx)(made)).toEqual({ inUse: true });
    expect(c.sm.calls.filter((x) => x.startsWith('put'))).toEqual(['put key', 'put client', 'put hook', 'put identity']);
    expect(JSON.parse(c.sm.values.get(arns.GITHUB_APP_IDENTITY_SECRET_ARN) ?? '')).toEqual({
      appId: '9',
      slug: 'made',
      clientId: 'Iv23limade',
    });
    expect(c.ctx.config.github.app).toMatchObject({ appId: '9', slug: 'made', clientId: 'Iv23limade' });
    expect(await c.ctx.githubAppSecret('webhookSecret')).toBe('wh');
    // Its next read of the identity finds the same App: it keeps it.
    const kept = c.ctx.config.github.app;
    c.clock.advance(appRecheckMs);
    await c.takeApp();
    expect(c.ctx.config.github.app).toBe(kept);
  });

  it('names the deploy settings to change when they name another App, which wins', async () => {
    const c = container({ GITHUB_APP_ID: '42', GITHUB_APP_SLUG: 'deployed', GITHUB_APP_CLIENT_ID: 'Iv23lideployed' });
    const answer = await keep(c.ctx)(made);
    expect(answer).toMatchObject({
      inUse: false,
      settings: { githubAppId: '9', githubAppSlug: 'made', githubAppClientId: 'Iv23limade' },
      nextStep: expect.stringContaining('deploy again'),
    });
    expect(c.ctx.config.github.app?.appId).toBe('42');
  });

  it('refuses, naming the variable, when the function was not given the identity secret', async () => {
    const sm = new FakeSecretsManager();
    const { GITHUB_APP_IDENTITY_SECRET_ARN: _, ...three } = arns;
    const ctx = buildAwsCoreContext(loadConfig(three), {}, { store: {} as Store, secretsManager: sm });
    await expect(keep(ctx)(made)).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('GITHUB_APP_IDENTITY_SECRET_ARN'),
    });
    expect(sm.calls).toEqual([]);
  });
});
