import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../shared/domain/errors';
import { checkReturnTo, withQuery } from '../../shared/oauth/return-to';

const allowed = ['https://app.example.com', 'http://localhost:3000'];

describe('returnTo check (no open redirect)', () => {
  it.each(['https://app.example.com/integrations?x=1', 'https://app.example.com', 'http://localhost:3000/cb'])('accepts %s', (v) => {
    expect(checkReturnTo(v, allowed)).toBe(new URL(v).toString());
  });

  it.each([
    'https://app.example.com.evil.com/',
    'https://evil.com/?https://app.example.com',
    'https://app.example.com@evil.com/',
    'https://user@app.example.com/',
    'http://app.example.com/',
    'https://app.example.com:444/',
    '//app.example.com/x',
    '/integrations',
    'javascript:alert(document.domain)',
    'data:text/html,hi',
    'not a url',
  ])('refuses %s', (v) => {
    expect(() => checkReturnTo(v, allowed)).toThrow(InvalidInputError);
  });

  it('adds connectionId or error to the query, keeping the rest', () => {
    expect(withQuery('https://app.example.com/i?tab=a#frag', { connectionId: 'conn_1' })).toBe(
      'https://app.example.com/i?tab=a&connectionId=conn_1#frag',
    );
    expect(withQuery('https://app.example.com/i?error=old', { error: 'access_denied' })).toBe(
      'https://app.example.com/i?error=access_denied',
    );
  });
});
