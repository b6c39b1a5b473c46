import { describe, expect, it } from 'vitest';
import type { Connection } from '../../shared/domain/model';
import { roundTokens } from '../../shared/polling/round-tokens';

const conn = (id: string) => ({ id }) as Connection;

describe("a polling round reads each connection's token once", () => {
  it('shares one read per connection, goes underneath for a forced refresh, and does not keep a failure', async () => {
    const reads: string[] = [];
    let fail = true;
    const under = {
      accessToken: async () => 'x',
      credential: async (c: Connection, o?: { forceRefresh?: boolean }) => {
        reads.push(`${c.id}${o?.forceRefresh ? ':force' : ''}`);
        if (c.id === 'bad' && fail) throw new Error('secret store down');
        return { accessToken: `tok-${c.id}` };
      },
    };
    const tokens = roundTokens(under);
    const got = await Promise.all([tokens.credential!(conn('a')), tokens.credential!(conn('a')), tokens.credential!(conn('b'))]);
    expect(got.map((g) => g.accessToken)).toEqual(['tok-a', 'tok-a', 'tok-b']);
    await tokens.credential!(conn('a'), { forceRefresh: true });
    await expect(tokens.credential!(conn('bad'))).rejects.toThrow('secret store down');
    fail = false;
    await expect(tokens.credential!(conn('bad'))).resolves.toEqual({ accessToken: 'tok-bad' });
    expect(reads).toEqual(['a', 'b', 'a:force', 'bad', 'bad']);
  });
});
