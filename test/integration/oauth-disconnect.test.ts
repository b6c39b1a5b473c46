import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { disconnect } from '../../shared/connections/disconnect';
import { readStoredToken } from '../../shared/store/stored-token';
import { createRouter } from '../../shared/http/router';
import { revokeForDisconnect } from '../../shared/oauth/revoke';
import { localRoutes } from '../../local/routes';
import { oauthTestContext, type OAuthTestContext } from '../helpers/oauth-test-context';
import { testPlatformKey } from '../helpers/test-context';
import { connectViaOAuth } from '../helpers/oauth-connect';

let t: OAuthTestContext;
beforeAll(async () => {
  t = await oauthTestContext();
});
afterAll(async () => {
  await t.stop();
});

describe('disconnecting an OAuth connection', () => {
  it('DELETE-connection flow: disconnect() with revokeForDisconnect revokes, then deletes the secret and the connection', async () => {
    const connection = await connectViaOAuth(t, 'github');
    const token = (await readStoredToken(t.ctx.secrets, connection))?.accessToken ?? '';
    const result = await disconnect(t.ctx, connection.id, { revoke: revokeForDisconnect(t.ctx) });
    expect(result).toMatchObject({ deleted: true, revoked: true, warnings: [] });
    expect(t.fake.validAccessTokens.has(token)).toBe(false);
    expect(await readStoredToken(t.ctx.secrets, connection)).toBeUndefined();
    expect(await new ConnectionRepo(t.ctx.store).get(connection.id)).toBeUndefined();
  });

  it('DELETE /connections/:id on the local runtime revokes the grant at the code host before deleting', async () => {
    const connection = await connectViaOAuth(t, 'github');
    const token = (await readStoredToken(t.ctx.secrets, connection))?.accessToken ?? '';
    const revokesBefore = t.fake.revokeCalls.length;
    const local = createRouter(localRoutes(t.ctx, t.queues), { platformApiKey: t.ctx.platformApiKey });
    const res = await local({
      method: 'DELETE',
      path: `/connections/${connection.id}`,
      headers: { authorization: `Bearer ${testPlatformKey}` },
      query: new URLSearchParams(),
      body: Buffer.alloc(0),
    });
    expect(res.status).toBeLessThan(300);
    expect(t.fake.revokeCalls.length).toBe(revokesBefore + 1);
    expect(t.fake.validAccessTokens.has(token)).toBe(false);
    expect(await new ConnectionRepo(t.ctx.store).get(connection.id)).toBeUndefined();
  });

  it('DELETE /connections/:id of a user-made token says it was not revoked, and that the user revokes it at the code host', async () => {
    const connection = await t.connect({ accountId: '583231' }, 'ghp_userMadeToken000000000000000000000');
    const revokesBefore = t.fake.revokeCalls.length;
    const local = createRouter(localRoutes(t.ctx, t.queues), { platformApiKey: t.ctx.platformApiKey });
    const res = await local({
      method: 'DELETE',
      path: `/connections/${connection.id}`,
      headers: { authorization: `Bearer ${testPlatformKey}` },
      query: new URLSearchParams(),
      body: Buffer.alloc(0),
    });
    expect(res.status).toBe(200);
    const body = JSON.parse(String(res.body)) as { deleted: boolean; revoked: boolean; note?: string; warnings: string[] };
    expect(body).toMatchObject({ deleted: true, revoked: false, warnings: [] });
    expect(body.note).toMatch(/deleted here only.*revoke it at the code host/i);
    expect(t.fake.revokeCalls.length).toBe(revokesBefore);
    expect(await readStoredToken(t.ctx.secrets, connection)).toBeUndefined();
  });

  it('no token or secret in the log lines', () => {
    expect(t.leaks()).toEqual([]);
  });
});
