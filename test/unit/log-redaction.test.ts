import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../shared/domain/errors';
import { createLambdaLogger } from '../../shared/observability/lambda-logger';
import { createJsonLogger, redact, type Logger } from '../../shared/observability/logger';

/** Every secret value below must never appear in any captured line. */
const secrets = {
  classic: 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  fineGrained: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJK',
  oauth: 'gho_16C7e42F292c6912E7710c838347Ae178B4a',
  bearerShort: 'xyz',
  contentSnareAccess: 'cs-at-4f1c2b9e8d7a6f5e4d3c2b1a',
  refresh: 'r1.8f7e6d5c4b3a29181716151413121110',
  clientSecret: 'cs_live_9d8c7b6a5f4e3d2c1b0a',
  oauthCode: 'a1b2c3d4e5f6a7b8c9d0',
  oauthState: 'st_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2',
  verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk0123456789abcdefghij',
  hubSignature: 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  platformKey: 'pk_QmFzZTY0S2V5VGhhdElzTG9uZ0Vub3VnaA',
  password: 'correct-horse-battery-staple',
};

/** Harmless fields an operator needs: they must survive. */
const harmless = {
  deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  connectionId: 'con_harmless123',
  toolId: 'github.get_issue',
  subscriptionId: 'sub_keepme456',
};

function cases(): Array<[string, Record<string, unknown>]> {
  const s = secrets;
  const withStack = new Error(`token exchange failed for ${s.oauth}`);
  withStack.stack = `Error: refresh failed with refresh_token=${s.refresh}\n    at exchange (https://example.com/oauth/callback?code=${s.oauthCode}&state=${s.oauthState}:1:1)\n    at Bearer ${s.bearerShort}`;
  const upstream = new AppError(
    'upstream_error',
    `token endpoint said {"access_token":"${s.contentSnareAccess}","refresh_token":"${s.refresh}"}`,
    {
      request: { client_secret: s.clientSecret, code_verifier: s.verifier },
    },
  );
  const cause = new Error('outer', { cause: new Error(`inner ${s.fineGrained}`) });
  return [
    [
      'flat keys',
      {
        token: s.classic,
        accessToken: s.contentSnareAccess,
        refresh_token: s.refresh,
        client_secret: s.clientSecret,
        code: s.oauthCode,
        code_verifier: s.verifier,
        password: s.password,
      },
    ],
    [
      'camel and kebab keys',
      {
        refreshToken: s.refresh,
        clientSecret: s.clientSecret,
        codeVerifier: s.verifier,
        apiKey: s.platformKey,
        'x-api-key': s.platformKey,
      },
    ],
    [
      'headers',
      {
        headers: {
          authorization: `Bearer ${s.bearerShort}`,
          Authorization: `token ${s.classic}`,
          'x-hub-signature-256': s.hubSignature,
          cookie: `sid=${s.oauthState}`,
        },
      },
    ],
    [
      'nested objects and arrays',
      {
        request: { body: { grant: { refresh_token: s.refresh } }, list: [{ token: s.oauth }, s.fineGrained, [`Bearer ${s.bearerShort}`]] },
      },
    ],
    [
      'values under harmless keys',
      { note: `used ${s.classic} and ${s.fineGrained}`, header: `Authorization: Bearer ${s.bearerShort}`, sig: `got ${s.hubSignature}` },
    ],
    [
      'urls with query strings',
      {
        url: `https://app.example.com/oauth/github/callback?code=${s.oauthCode}&state=${s.oauthState}`,
        location: new URL(`https://x.example/cb?state=${s.oauthState}&code=${s.oauthCode}`),
      },
    ],
    [
      'form body',
      { body: `grant_type=authorization_code&code=${s.oauthCode}&code_verifier=${s.verifier}&client_secret=${s.clientSecret}` },
    ],
    ['error with secrets in message and stack', { error: withStack }],
    ['app error with json body and details', { error: upstream }],
    ['error cause chain', { error: cause, errors: [new Error(`login refused for password=${s.password}`)] }],
    [
      'header-like objects',
      {
        headers: new Headers({ authorization: `Bearer ${s.bearerShort}`, 'x-hub-signature-256': s.hubSignature }),
        params: new URLSearchParams({ code: s.oauthCode, state: s.oauthState }),
      },
    ],
  ];
}

function expectClean(lines: string[]): void {
  const text = lines.join('\n');
  for (const [name, value] of Object.entries(secrets)) {
    if (name === 'bearerShort') expect(text, name).not.toMatch(/Bearer xyz/i);
    else expect(text, `${name} leaked`).not.toContain(value);
  }
}

type Level = 'debug' | 'info' | 'warn' | 'error';
const levels: Level[] = ['debug', 'info', 'warn', 'error'];

function exercise(logger: Logger): void {
  for (const level of levels) {
    for (const [name, attrs] of cases()) {
      logger[level](`case ${name}`, { ...harmless, ...attrs });
      logger.child({ ...harmless, token: secrets.classic })[level](`child ${name}`, attrs);
    }
    // Secrets in the message itself.
    logger[level](
      `callback hit https://h.example/cb?code=${secrets.oauthCode}&state=${secrets.oauthState} with Bearer ${secrets.bearerShort} and ${secrets.oauth}`,
      harmless,
    );
  }
}

describe('log redaction', () => {
  it('the JSON logger writes no token, secret, code or verifier on any level, harmless ids intact', () => {
    const lines: string[] = [];
    exercise(createJsonLogger({ level: 'DEBUG', write: (l) => lines.push(l) }));
    expect(lines.length).toBe(levels.length * (cases().length * 2 + 1));
    expectClean(lines);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject(harmless);
  });

  describe('the Powertools (Lambda) logger', () => {
    let lines: string[];
    beforeEach(() => {
      lines = [];
      const capture = (chunk: unknown) => {
        lines.push(String(chunk));
        return true;
      };
      vi.spyOn(process.stdout, 'write').mockImplementation(capture);
      vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    });
    afterEach(() => vi.restoreAllMocks());

    it('writes no token, secret, code or verifier on any level, harmless ids intact', () => {
      exercise(createLambdaLogger('test-service', 'DEBUG'));
      const json = lines.filter((l) => l.trim().startsWith('{'));
      expect(json.length).toBe(levels.length * (cases().length * 2 + 1));
      expectClean(lines);
      const first = JSON.parse(json[0]!) as Record<string, unknown>;
      expect(first).toMatchObject({ ...harmless, service: 'test-service', level: 'DEBUG' });
    });

    it('keeps the error name, scrubbed message and stack, and the error code', () => {
      createLambdaLogger('test-service').error('failed', { error: new AppError('rate_limited', `slow down ${secrets.classic}`) });
      const entry = JSON.parse(lines.find((l) => l.includes('"failed"'))!) as { error: Record<string, unknown> };
      expect(entry.error).toMatchObject({ name: 'AppError', code: 'rate_limited', message: 'slow down [REDACTED]' });
      expect(String(entry.error.stack)).toContain('log-redaction.test.ts');
    });

    it('writes nothing below its level', () => {
      const logger = createLambdaLogger('test-service', 'WARN');
      logger.info('quiet');
      logger.warn('loud');
      expect(lines.join('')).not.toContain('quiet');
      expect(lines.join('')).toContain('loud');
    });
  });
});

describe('redact', () => {
  it('keeps error codes under `code` but hides an OAuth code there', () => {
    expect(redact({ code: 'invalid_input' })).toEqual({ code: 'invalid_input' });
    expect(redact({ code: 'ECONNREFUSED' })).toEqual({ code: 'ECONNREFUSED' });
    expect(redact({ code: secrets.oauthCode })).toEqual({ code: '[REDACTED]' });
    expect(redact({ state: 'open', oauth: { state: secrets.oauthState } })).toEqual({ state: 'open', oauth: { state: '[REDACTED]' } });
  });

  it('leaves prose about tokens readable', () => {
    expect(redact('token expired; refresh token was revoked')).toBe('token expired; refresh token was revoked');
  });

  it('hides code and state in a URL but keeps the rest of it', () => {
    expect(redact(`https://a.example/cb?code=${secrets.oauthCode}&state=${secrets.oauthState}&page=2`)).toBe(
      'https://a.example/cb?code=[REDACTED]&state=[REDACTED]&page=2',
    );
  });
});

describe('redact: every token family in every shape it takes', () => {
  const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');
  // A stateless installation token as GitHub issues them: `ghs_` then a JWT, about 520 characters.
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'ghs-2026-11' }));
  const payload = b64url(
    JSON.stringify({
      iss: 'https://github.com',
      sub: 'installation:123456',
      aud: 'api.github.com',
      iat: 1_795_000_000,
      exp: 1_795_003_600,
      permissions: { contents: 'write', issues: 'write', metadata: 'read' },
      repository_ids: [1296269, 1296270],
    }),
  );
  const signature = b64url(Buffer.alloc(256, 0xfb)).replace(/^(.{10})/, '$1-_');
  const stateless = `ghs_${header}.${payload}.${signature}`;
  const appJwt = `${header}.${payload}.${signature}`;
  const scopedKey = `aik_${'a1b2c3d4e5'.repeat(2)}.${'Q'.repeat(20)}-_${'z'.repeat(21)}`;
  const families = {
    'stateless installation token': stateless,
    'classic installation token': 'ghs_16C7e42F292c6912E7710c838347Ae178B4a',
    'user-to-server token': 'ghu_16C7e42F292c6912E7710c838347Ae178B4a',
    'refresh token': 'ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498',
    'fine-grained token': secrets.fineGrained,
    "the App's JWT": appJwt,
    'scoped key': scopedKey,
  };

  it('the realistic stateless token is the shape GitHub sends: ghs_, two dots, about 520 characters', () => {
    expect(stateless.startsWith('ghs_')).toBe(true);
    expect(stateless.split('.')).toHaveLength(3);
    expect(stateless.length).toBeGreaterThan(480);
  });

  for (const [name, token] of Object.entries(families)) {
    it(`leaves no part of a ${name} in a message, a stack, quoted JSON, a header line or a URL`, () => {
      const parts = token.split(/[._-]/).filter((p) => p.length >= 8 && !/^aik$|^[a-z0-9]{20}$/.test(p));
      const shapes = [
        `call failed with ${token}.`,
        `Authorization: token ${token}`,
        `upstream said {"detail":"bad credentials ${token}"}`,
        `https://api.example/x?access=${token}&page=2`,
        redact(new Error(`401 for ${token}`)),
        redact({ note: `(${token})` }),
      ];
      for (const shape of shapes) {
        const line = typeof shape === 'string' ? String(redact(shape)) : JSON.stringify(shape);
        for (const part of parts) expect(line, `${name} in: ${line.slice(0, 120)}`).not.toContain(part);
        expect(line).toContain('[REDACTED]');
      }
    });
  }

  it('keeps what an operator needs around a token: the sentence, a scoped key id', () => {
    expect(redact(`refresh failed with ${families['classic installation token']}. Retrying`)).toBe(
      'refresh failed with [REDACTED]. Retrying',
    );
    expect(redact(`key ${scopedKey} revoked`)).toBe(`key aik_${'a1b2c3d4e5'.repeat(2)}.[REDACTED] revoked`);
  });
});
