import { describe, expect, it } from 'vitest';
import { providerRegistry } from '../../shared/wiring/providers';
import { requestToken, TokenEndpointError } from '../../shared/oauth/token-client';
import type { Fetch } from '../../shared/ports';

const creds = { clientId: 'cid', clientSecret: 'very-secret-client-value' };
const clock = { now: () => 1_000_000 };
const answering = (status: number, body: unknown): Fetch =>
  (async () => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status })) as Fetch;

async function failure(fetch: Fetch, provider: 'github' | 'contentsnare' = 'contentsnare'): Promise<TokenEndpointError> {
  const def = providerRegistry[provider].oauth;
  const e = await requestToken({ fetch, clock }, def, 'http://127.0.0.1:9/token', creds, {
    grant_type: 'refresh_token',
    refresh_token: 'rt-secret-value',
  }).catch((err: unknown) => err);
  expect(e).toBeInstanceOf(TokenEndpointError);
  const err = e as TokenEndpointError;
  expect(err.message).not.toContain('secret');
  return err;
}

describe('token endpoint answers', () => {
  it('HTTP 200 with an error field is a failure, not a token', async () => {
    const e = await failure(answering(200, { error: 'bad_verification_code', error_description: 'expired' }), 'github');
    expect(e.kind).toBe('rejected');
    expect(e.oauthError).toBe('bad_verification_code');
  });

  it('invalid_grant is definitive, with any status', async () => {
    expect((await failure(answering(400, { error: 'invalid_grant' }))).kind).toBe('invalid_grant');
    expect((await failure(answering(200, { error: 'invalid_grant' }))).kind).toBe('invalid_grant');
  });

  it("the code host's bad_refresh_token (HTTP 200) is definitive like invalid_grant", async () => {
    const e = await failure(
      answering(200, { error: 'bad_refresh_token', error_description: 'The refresh token passed is incorrect or expired.' }),
      'github',
    );
    expect(e.kind).toBe('invalid_grant');
    expect(e.oauthError).toBe('bad_refresh_token');
  });

  it('5xx, 429, temporarily_unavailable and network errors are transient', async () => {
    expect((await failure(answering(503, 'Service Unavailable'))).kind).toBe('transient');
    expect((await failure(answering(429, { message: 'slow down' }))).kind).toBe('transient');
    expect((await failure(answering(400, { error: 'temporarily_unavailable' }))).kind).toBe('transient');
    expect(
      (
        await failure((async () => {
          throw new TypeError('fetch failed');
        }) as Fetch)
      ).kind,
    ).toBe('transient');
  });

  it('a 200 without an access token, or not JSON, is rejected', async () => {
    expect((await failure(answering(200, { token_type: 'bearer' }))).kind).toBe('rejected');
    expect((await failure(answering(200, '<html>login</html>'))).kind).toBe('rejected');
    expect((await failure(answering(401, { error: 'invalid_client' }))).kind).toBe('rejected');
  });

  it('computes expiry from expires_in, else the provider default', async () => {
    const def = providerRegistry.contentsnare.oauth;
    const withIn = await requestToken({ fetch: answering(200, { access_token: 'a', expires_in: 60 }), clock }, def, 'http://x/', creds, {});
    expect(withIn.token.expiresAt).toBe(1_000_000 + 60_000);
    const without = await requestToken({ fetch: answering(200, { access_token: 'a' }), clock }, def, 'http://x/', creds, {});
    expect(without.token.expiresAt).toBe(1_000_000 + 7_200_000);
    const github = await requestToken(
      { fetch: answering(200, { access_token: 'a', scope: 'repo' }), clock },
      providerRegistry.github.oauth,
      'http://x/',
      creds,
      {},
    );
    expect(github.token.expiresAt).toBeUndefined();
  });

  it('sends the code host a form and the collection service JSON, both asking for JSON back', async () => {
    const seen: RequestInit[] = [];
    const capture = (async (_u: string, init: RequestInit) => {
      seen.push(init);
      return new Response(JSON.stringify({ access_token: 'a' }));
    }) as unknown as Fetch;
    await requestToken({ fetch: capture, clock }, providerRegistry.github.oauth, 'http://x/', creds, { code: 'c' });
    await requestToken({ fetch: capture, clock }, providerRegistry.contentsnare.oauth, 'http://x/', creds, { code: 'c' });
    const [gh, cs] = seen;
    expect((gh?.headers as Record<string, string> | undefined)?.['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(String(gh?.body)).get('client_secret')).toBe(creds.clientSecret);
    expect((cs?.headers as Record<string, string> | undefined)?.accept).toBe('application/json');
    expect(JSON.parse(String(cs?.body))).toEqual({ code: 'c', client_id: 'cid', client_secret: creds.clientSecret });
  });
});
