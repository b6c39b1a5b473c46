import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { fromLambdaEvent, toLambdaResult } from '../../shared/http/lambda-http';
import { bindingCookie, readCookie } from '../../shared/oauth/start';

// docs/security.md, section 6: the OAuth callback is bound to the browser by a cookie, on AWS as locally.

describe('binding cookie', () => {
  it('is Secure when PUBLIC_URL is https, and scoped to the provider under its path', () => {
    const cookie = bindingCookie('https://integrations.example.com/prod', 'github', 'oauth_bind_0123456789abcdef', 'v'.repeat(43), 600);
    expect(cookie).toBe(
      `oauth_bind_0123456789abcdef=${'v'.repeat(43)}; Path=/prod/oauth/github; Max-Age=600; HttpOnly; SameSite=Lax; Secure`,
    );
  });

  it('is read only when present exactly once', () => {
    expect(readCookie('a=1; oauth_bind_x=abc; b=2', 'oauth_bind_x')).toBe('abc');
    expect(readCookie('oauth_bind_x=abc; oauth_bind_x=def', 'oauth_bind_x')).toBeUndefined();
    expect(readCookie('oauth_bind_xy=abc', 'oauth_bind_x')).toBeUndefined();
    expect(readCookie(undefined, 'oauth_bind_x')).toBeUndefined();
    expect(readCookie('oauth_bind_x=', 'oauth_bind_x')).toBeUndefined();
  });
});

describe('on AWS (payload v2)', () => {
  it('the request cookies, which API Gateway and function URLs pass outside the headers, reach the route as a Cookie header', () => {
    const event = {
      rawPath: '/oauth/github/callback',
      rawQueryString: 'state=s&code=c',
      headers: { accept: 'text/html' },
      cookies: ['a=1', 'oauth_bind_x=abc'],
      requestContext: { http: { method: 'GET' } },
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    expect(fromLambdaEvent(event).headers.cookie).toBe('a=1; oauth_bind_x=abc');
  });

  it("a Set-Cookie answer is returned in the result's cookies, where payload v2 takes it", () => {
    const result = toLambdaResult({
      status: 302,
      headers: { location: 'https://x.example/', 'set-cookie': 'oauth_bind_x=abc; Path=/oauth/github' },
      body: '',
    });
    expect(result.cookies).toEqual(['oauth_bind_x=abc; Path=/oauth/github']);
    expect(result.headers?.['set-cookie']).toBeUndefined();
    expect(result.headers?.location).toBe('https://x.example/');
  });
});
