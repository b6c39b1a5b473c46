import { afterAll, beforeEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken } from '../../shared/store/stored-token';
import { appOrigin, oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { oauthConnect } from '../helpers/oauth-connect';

/**
 * A Content Snare connection is named from the partner API's
 * `GET /partner_api/v1/me` (documented with `full_name` only), and
 * always carries an account id, so a reconnect into another account is refused.
 */
let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});
beforeEach(() => {
  t.fake.behaviour.contentsnareMe = { id: 'usr_fake_1', full_name: 'Fake Snare Admin', email: 'admin@agency.example' };
});

async function connect(body: Record<string, unknown> = {}): Promise<URL> {
  return (await oauthConnect(t, 'contentsnare', { returnTo: `${appOrigin}/done`, ...body })).location;
}

const repo = () => new ConnectionRepo(t.ctx.store);

describe('Content Snare account identity from GET /partner_api/v1/me', () => {
  it('names the connection with the user of the new token: id as accountId, e-mail as accountLogin', async () => {
    const calls = t.fake.meCalls;
    const back = await connect({ label: 'Agency A' });
    const connection = await repo().get(back.searchParams.get('connectionId') ?? '');
    expect(connection).toMatchObject({
      provider: 'contentsnare',
      accountLogin: 'admin@agency.example',
      accountId: 'usr_fake_1',
      label: 'Agency A',
    });
    // One call, with the token just issued (the fake answers 401 to any other).
    expect(t.fake.meCalls).toBe(calls + 1);
    expect(t.fake.validAccessTokens.has((await readStoredToken(t.ctx.secrets, connection?.id ?? ''))?.accessToken ?? '')).toBe(true);
  });

  it.each([
    [{ full_name: 'Ava Chen' }, 'Ava Chen', 'name:Ava Chen'],
    [{ full_name: 'Ava Chen', email: 'Ava@Agency.example' }, 'Ava@Agency.example', 'email:ava@agency.example'],
    [{ id: 4711, full_name: 'Ava Chen' }, 'Ava Chen', '4711'],
  ])('answer %j (the documented shape has full_name only) -> accountLogin %s, accountId %s', async (me, login, id) => {
    t.fake.behaviour.contentsnareMe = me;
    const back = await connect();
    expect(await repo().get(back.searchParams.get('connectionId') ?? '')).toMatchObject({ accountLogin: login, accountId: id });
  });

  it('an answer that names nobody fails the connect (account_lookup_failed) and stores nothing', async () => {
    t.fake.behaviour.contentsnareMe = { avatar: null };
    const before = (await repo().list()).length;
    const back = await connect();
    expect(back.searchParams.get('error')).toBe('account_lookup_failed');
    expect(await repo().list()).toHaveLength(before);
  });

  it('a reconnect into the same account replaces the token; into a different account it is refused (account_mismatch)', async () => {
    const first = await connect();
    const id = first.searchParams.get('connectionId') ?? '';
    const token = await readStoredToken(t.ctx.secrets, id);

    const same = await connect({ connectionId: id });
    expect(same.searchParams.get('connectionId')).toBe(id);
    const renewed = await readStoredToken(t.ctx.secrets, id);
    expect(renewed?.accessToken).not.toBe(token?.accessToken);

    t.fake.behaviour.contentsnareMe = { id: 'usr_other', full_name: 'Someone Else', email: 'else@other.example' };
    const other = await connect({ connectionId: id });
    expect(other.searchParams.get('error')).toBe('account_mismatch');
    expect((await readStoredToken(t.ctx.secrets, id))?.accessToken).toBe(renewed?.accessToken);
    expect(await repo().get(id)).toMatchObject({ accountId: 'usr_fake_1', accountLogin: 'admin@agency.example' });
  });
});
