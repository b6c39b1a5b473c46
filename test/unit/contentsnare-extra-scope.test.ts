import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config/config';
import { authorizeInputSchema, providerAuthorizeUrl } from '../../shared/oauth/authorize';
import { contentSnareOAuth } from '../../shared/providers/contentsnare/oauth/definition';
import type { OAuthStateRecord } from '../../shared/oauth/state-store';

describe('the administration scope is asked for only when webhooks need it', () => {
  const config = loadConfig({ PLATFORM_API_KEY: 'k'.repeat(40), DISPATCH_SIGNING_SECRET: 's'.repeat(40) });
  const record: OAuthStateRecord = {
    provider: 'contentsnare',
    redirectUri: 'http://localhost:3000/oauth/contentsnare/callback',
    codeVerifier: 'v'.repeat(43),
    expiresAt: 0,
  };
  const scopeOf = (r: OAuthStateRecord) =>
    new URL(providerAuthorizeUrl(config, contentSnareOAuth, 'client-id', 'state', r)).searchParams.get('scope');

  it('the default authorization asks for the configured scopes, without administration', () => {
    expect(scopeOf(record)).toBe(config.contentsnare.scopes);
    expect(scopeOf(record)).not.toContain('administration');
  });

  it('an authorization started with scopes ["administration"] adds it to the configured ones', () => {
    expect(scopeOf({ ...record, extraScopes: ['administration'] })?.split(' ')).toEqual([
      ...config.contentsnare.scopes.split(' '),
      'administration',
    ]);
  });

  it('only the scopes webhooks need are accepted as extra scopes', () => {
    expect(authorizeInputSchema.safeParse({ scopes: ['administration'] }).success).toBe(true);
    expect(authorizeInputSchema.safeParse({ scopes: ['write_team_members'] }).success).toBe(false);
  });
});
