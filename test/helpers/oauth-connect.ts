import type { Connection } from '../../shared/domain/model';
import type { HttpResponse } from '../../shared/http/types';
import { ConnectionRepo } from '../../shared/store/connection-repo';
import { appOrigin, type OAuthTestContext } from './oauth-test-context';

type Provider = 'github' | 'contentsnare';

/**
 * The platform starts a connect (`POST /oauth/{provider}/authorize`, which must answer 200)
 * and the browser opens the authorize URL: through our start step and the provider's
 * consent. Returns the URL the provider sends the browser back to (our callback, not yet
 * called). `body` defaults to a return to the app.
 */
export async function browseToCallback(
  t: OAuthTestContext,
  provider: Provider,
  body: Record<string, unknown> = { returnTo: `${appOrigin}/back` },
): Promise<URL> {
  const res = await t.authorize(provider, body);
  if (res.status !== 200) throw new Error(`authorize answered ${res.status}: ${String(res.body)}`);
  return t.fake.browse((JSON.parse(String(res.body)) as { authorizeUrl: string }).authorizeUrl);
}

export interface OAuthConnected {
  /** Our callback's answer. */
  answer: HttpResponse;
  /** Where the callback sent the browser (`about:blank` when it answered no Location). */
  location: URL;
  /** The `connectionId` the callback returned, or '' when it returned none. */
  connectionId: string;
}

/** The whole browser round trip: authorize, start, consent, our callback (with the browser's cookies). */
export async function oauthConnect(t: OAuthTestContext, provider: Provider, body?: Record<string, unknown>): Promise<OAuthConnected> {
  const answer = await t.callback(await browseToCallback(t, provider, body));
  const location = new URL(answer.headers?.location ?? 'about:blank');
  return { answer, location, connectionId: location.searchParams.get('connectionId') ?? '' };
}

/** The round trip, which must end with a connection: its id (throws naming where the browser went otherwise). */
export async function oauthConnectionId(t: OAuthTestContext, provider: Provider, body?: Record<string, unknown>): Promise<string> {
  const { connectionId, location } = await oauthConnect(t, provider, body);
  if (!connectionId) throw new Error(`no connection: the callback sent the browser to ${location.href}`);
  return connectionId;
}

/** The round trip (returning to the app), and the stored connection it made. */
export async function connectViaOAuth(t: OAuthTestContext, provider: Provider): Promise<Connection> {
  const id = await oauthConnectionId(t, provider, { returnTo: `${appOrigin}/x` });
  const connection = await new ConnectionRepo(t.ctx.store).get(id);
  if (!connection) throw new Error(`the callback named connection ${id}, which is not stored`);
  return connection;
}
