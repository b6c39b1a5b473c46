import { afterAll, beforeEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { readStoredToken } from '../../shared/store/stored-token';
import { appOrigin, oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { oauthConnect } from '../helpers/oauth-connect';
import { platformApiCaller } from '../helpers/platform-api-caller';

/**
 * A Content Snare connection is named from the partner API's `GET /partner_api/v1/me`
 * (documented with `full_name` only). That answer is the user who
 * authorised, not the account: another admin of the same account, or a user who renamed
 * themselves, reconnects; a failed `GET /me` leaves a working connection marked unknown.
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
  delete t.fake.behaviour.contentsnareMeStatus;
});

async function connect(body: Record<string, unknown> = {}): Promise<URL> {
  return (await oauthConnect(t, 'contentsnare', { returnTo: `${appOrigin}/done`, ...body })).location;
}

const repo = () => new ConnectionRepo(t.ctx.store);

describe('Content Snare account identity from GET /partner_api/v1/me', () => {
  it('names the connection with the user of the new token (e-mail, else full name) and takes no account id from it', async () => {
    const calls = t.fake.meCalls;
    const back = await connect({ label: 'Agency A' });
    const connection = await repo().get(back.searchParams.get('connectionId') ?? '');
    expect(connection).toMatchObject({ provider: 'contentsnare', accountLogin: 'admin@agency.example', label: 'Agency A' });
    expect(connection?.accountId).toBeUndefined();
    expect(connection?.identity).toBeUndefined();
    // One call, with the token just issued (the fake answers 401 to any other).
    expect(t.fake.meCalls).toBe(calls + 1);
    expect(
      t.fake.validAccessTokens.has(
        (await readStoredToken(t.ctx.secrets, { id: connection?.id ?? '', provider: 'contentsnare' }))?.accessToken ?? '',
      ),
    ).toBe(true);
  });

  it.each([
    [{ full_name: 'Ava Chen' }, 'Ava Chen'],
    [{ full_name: 'Ava Chen', email: 'Ava@Agency.example' }, 'Ava@Agency.example'],
    [{ id: 4711, full_name: 'Ava Chen' }, 'Ava Chen'],
  ])('answer %j (the documented shape has full_name only) -> accountLogin %s', async (me, login) => {
    t.fake.behaviour.contentsnareMe = me;
    const back = await connect();
    expect(await repo().get(back.searchParams.get('connectionId') ?? '')).toMatchObject({ accountLogin: login });
  });

  it.each([
    [503, undefined, 'GET /me answered HTTP 503'],
    [403, undefined, 'GET /me answered HTTP 403'],
    [undefined, { avatar: null }, 'GET /me named nobody (no full_name or email)'],
  ])('GET /me failing (%s %j) still makes a working connection, listed with identity unknown', async (status, me, reason) => {
    if (status !== undefined) t.fake.behaviour.contentsnareMeStatus = status;
    if (me !== undefined) t.fake.behaviour.contentsnareMe = me;
    const back = await connect();
    expect(back.searchParams.get('error')).toBeNull();
    const id = back.searchParams.get('connectionId') ?? '';
    const listed = ((await platformApiCaller(t.ctx)('GET', '/connections')).body as { connections: Record<string, unknown>[] }).connections;
    expect(listed.find((c) => c.id === id)).toMatchObject({
      status: 'connected',
      accountLogin: 'unknown',
      identity: 'unknown',
      identityReason: reason,
    });
    expect(
      t.fake.validAccessTokens.has((await readStoredToken(t.ctx.secrets, { id: id, provider: 'contentsnare' }))?.accessToken ?? ''),
    ).toBe(true);
  });

  it('a reconnect by another admin of the account, or by a user who renamed themselves, replaces the token and the name', async () => {
    const id = (await connect()).searchParams.get('connectionId') ?? '';
    t.fake.behaviour.contentsnareMe = { id: 'usr_other_admin', full_name: 'Second Admin', email: 'second@agency.example' };
    expect((await connect({ connectionId: id })).searchParams.get('connectionId')).toBe(id);
    expect(await repo().get(id)).toMatchObject({ accountLogin: 'second@agency.example', status: 'connected' });

    t.fake.behaviour.contentsnareMe = { full_name: 'Second Admin (renamed)' };
    const before = await readStoredToken(t.ctx.secrets, { id: id, provider: 'contentsnare' });
    expect((await connect({ connectionId: id })).searchParams.get('connectionId')).toBe(id);
    expect((await readStoredToken(t.ctx.secrets, { id: id, provider: 'contentsnare' }))?.accessToken).not.toBe(before?.accessToken);
    expect(await repo().get(id)).toMatchObject({ accountLogin: 'Second Admin (renamed)' });
  });

  it('a connection that carries an id taken from a name (older versions) reconnects under a new name, and the id is dropped', async () => {
    const id = (await connect()).searchParams.get('connectionId') ?? '';
    await repo().update(id, (c) => ({ ...c, accountLogin: 'Old Name', accountId: 'name:Old Name' }));
    t.fake.behaviour.contentsnareMe = { full_name: 'New Name' };
    expect((await connect({ connectionId: id })).searchParams.get('connectionId')).toBe(id);
    const after = await repo().get(id);
    expect(after).toMatchObject({ accountLogin: 'New Name' });
    expect(after?.accountId).toBeUndefined();
  });

  it('a reconnect whose GET /me fails keeps the previous name, marked unknown; the next one that names its user clears the mark', async () => {
    const id = (await connect()).searchParams.get('connectionId') ?? '';
    t.fake.behaviour.contentsnareMeStatus = 500;
    expect((await connect({ connectionId: id })).searchParams.get('connectionId')).toBe(id);
    expect(await repo().get(id)).toMatchObject({ accountLogin: 'admin@agency.example', identity: 'unknown', status: 'connected' });
    delete t.fake.behaviour.contentsnareMeStatus;
    expect((await connect({ connectionId: id })).searchParams.get('connectionId')).toBe(id);
    const after = await repo().get(id);
    expect(after?.identity).toBeUndefined();
    expect(after?.identityReason).toBeUndefined();
  });
});
