import { describe, expect, it } from 'vitest';
import { parseDotEnv } from '../../local/dotenv';

describe('.env', () => {
  it('reads the common forms', () => {
    const { values, problems } = parseDotEnv(
      [
        '# comment',
        '',
        'PORT=3001',
        'export PUBLIC_URL = https://x.example # the tunnel',
        "SINGLE='a # not a comment'",
        'DOUBLE="line1\\nline2 \\"q\\""',
        'PEM="-----BEGIN-----',
        'abc',
        '-----END-----"',
        'EMPTY=',
        'bad line',
      ].join('\n'),
    );
    expect(values).toEqual({
      PORT: '3001',
      PUBLIC_URL: 'https://x.example',
      SINGLE: 'a # not a comment',
      DOUBLE: 'line1\nline2 "q"',
      PEM: '-----BEGIN-----\nabc\n-----END-----',
      EMPTY: '',
    });
    expect(problems).toEqual(['line 11: expected KEY=value']);
  });
});
