import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config';
import { AppError } from '../../shared/domain/errors';
import { clientCredentials, parseProvider, redirectUriFor } from '../../shared/oauth/providers';
import { providerRegistry } from '../../shared/wiring/providers';

describe('OAuth provider definitions', () => {
  const config = loadConfig({ PUBLIC_URL: 'https://hooks.example.com/', CONTENTSNARE_OAUTH_AUTHORIZE_PATH: '/oauth/authorization' });

  it('builds the redirect URI from PUBLIC_URL exactly', () => {
    expect(redirectUriFor(config, 'github')).toBe('https://hooks.example.com/oauth/github/callback');
    expect(redirectUriFor(config, 'contentsnare')).toBe('https://hooks.example.com/oauth/contentsnare/callback');
  });

  it('uses the documented endpoints, with the collection service authorize path configurable', () => {
    expect(providerRegistry.github.oauth.authorizeEndpoint(config)).toBe('https://github.com/login/oauth/authorize');
    expect(providerRegistry.github.oauth.tokenEndpoint(config)).toBe('https://github.com/login/oauth/access_token');
    expect(providerRegistry.contentsnare.oauth.authorizeEndpoint(config)).toBe('https://api.contentsnare.com/oauth/authorization');
    expect(providerRegistry.contentsnare.oauth.tokenEndpoint(config)).toBe('https://api.contentsnare.com/oauth/token');
  });

  it('defaults the collection service authorize path to /oauth/authorization (the reference: its OpenAPI security scheme and the newest client), still configurable', () => {
    expect(providerRegistry.contentsnare.oauth.authorizeEndpoint(loadConfig({}))).toBe('https://api.contentsnare.com/oauth/authorization');
    expect(
      providerRegistry.contentsnare.oauth.authorizeEndpoint(loadConfig({ CONTENTSNARE_OAUTH_AUTHORIZE_PATH: '/oauth/authorize' })),
    ).toBe('https://api.contentsnare.com/oauth/authorize');
  });

  it('refuses unknown providers with not_found', () => {
    expect(parseProvider('github')).toBe('github');
    expect(() => parseProvider('gitlab')).toThrow(AppError);
    expect(() => parseProvider(undefined)).toThrow(/github, contentsnare/);
  });

  it('names exactly the missing variables when a client is not configured', async () => {
    const ctx = { config: loadConfig({ GITHUB_CLIENT_ID: 'id' }), oauthClientSecret: async () => undefined, providers: providerRegistry };
    const e = await clientCredentials(ctx, 'github').catch((err: unknown) => err as AppError);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('not_configured');
    expect((e as AppError).message).toBe('GitHub OAuth is not configured: set GITHUB_CLIENT_SECRET');
    const ok = await clientCredentials({ ...ctx, oauthClientSecret: async () => 's3cret' }, 'github');
    expect(ok).toEqual({ clientId: 'id', clientSecret: 's3cret' });
  });
});
