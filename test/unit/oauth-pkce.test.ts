import { describe, expect, it } from 'vitest';
import { pkceChallenge, randomUrlToken, stateHash } from '../../shared/oauth/pkce';

describe('PKCE and state values', () => {
  it('computes the S256 challenge of RFC 7636 appendix B', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes 43-character base64url values that do not repeat', () => {
    const values = new Set(Array.from({ length: 200 }, () => randomUrlToken()));
    expect(values.size).toBe(200);
    for (const v of values) expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('keys states by a hash that does not contain the state', () => {
    const state = randomUrlToken();
    const hash = stateHash(state);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(state);
    expect(stateHash(state)).toBe(hash);
  });
});
