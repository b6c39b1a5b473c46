import { createHmac } from 'node:crypto';
import type { AppContext } from '../ports/app-context';
import { createTokenConnection } from '../connections/create-token-connection';
import { AppError } from '../domain/errors';
import { providers } from '../domain/model';
import { sameSecret } from '../domain/same-secret';
import type { HttpResponse, RouteRequest } from '../http/types';
import { connectedPage } from '../oauth/pages';
import { withQuery } from '../oauth/return-to';
import { claimConnectSession, connectTokenHash, readConnectSession, type ConnectSession } from '../store/connect-session-repo';
import { connectOffersOf, offersOf, type ConnectOffer, type OfferDef } from './connect-offers';
import { connectPage, connectRefusedPage } from './connect-page';

/**
 * The page's forms carry a value only its own rendering knows: derived from the session's
 * token, which is never stored, so a page of another session (or a forged form) cannot post
 * here; and a browser's `Origin`, when it sends one, must be this runtime's.
 */
export function connectCsrf(token: string): string {
  return createHmac('sha256', token).update('connect-page-form').digest('base64url');
}

const pageUrl = (ctx: AppContext, token: string) => `${ctx.config.publicUrl}/connect/${token}`;

/** Where the flows started from the page go on to, and where it may send the browser back. */
function formActions(ctx: AppContext, session: ConnectSession): string[] {
  const urls = [...providers.map((p) => ctx.providers[p].oauth.authorizeEndpoint(ctx.config)), ctx.config.github.oauthUrl];
  if (session.returnTo !== undefined) urls.push(session.returnTo);
  return urls.map((u) => new URL(u).origin);
}

async function render(ctx: AppContext, token: string, session: ConnectSession, problem?: { status: number; message: string }) {
  const defs = connectOffersOf(ctx.providers);
  const offers = await Promise.all(
    offersOf(defs, session).map(async (id) => {
      const def = defs[id] as OfferDef;
      return { id, def, available: await def.configured(ctx) };
    }),
  );
  return connectPage({
    action: pageUrl(ctx, token),
    csrf: connectCsrf(token),
    offers,
    formActions: formActions(ctx, session),
    ...(problem ? { problem: problem.message, status: problem.status } : {}),
  });
}

/** `GET /connect/{token}`: the choice of services, or why the link cannot be used. */
export async function showConnectPage(ctx: AppContext, token: string): Promise<HttpResponse> {
  const read = await readConnectSession(ctx.store, ctx.clock, connectTokenHash(token));
  if (!read.ok) return connectRefusedPage(read.why);
  return render(ctx, token, read.session);
}

function formOf(req: RouteRequest): URLSearchParams | undefined {
  const type = req.headers['content-type'] ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? new URLSearchParams(req.body.toString('utf8')) : undefined;
}

const see = (location: string): HttpResponse => ({
  status: 303,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'same-origin' },
  body: '',
});

/**
 * `POST /connect/{token}`: the end user's choice. A service's flow starts carrying the
 * session (its connection is made for the end user, and spends the session); a token is
 * checked with the code host, and the session spent, before anything is kept.
 */
export async function chooseOnConnectPage(ctx: AppContext, token: string, req: RouteRequest): Promise<HttpResponse> {
  const hash = connectTokenHash(token);
  const read = await readConnectSession(ctx.store, ctx.clock, hash);
  if (!read.ok) return connectRefusedPage(read.why);
  const session = read.session;
  const origin = req.headers.origin;
  const fields = formOf(req);
  if (
    (origin !== undefined && origin !== new URL(ctx.config.publicUrl).origin) ||
    !sameSecret(fields?.get('csrf') ?? '', connectCsrf(token))
  ) {
    ctx.logger.warn('connect page post refused: cross-site, or not from the page');
    return render(ctx, token, session, { status: 403, message: 'This form did not come from this page; choose again here.' });
  }
  const choice = fields?.get('choice') as ConnectOffer | undefined;
  const defs = connectOffersOf(ctx.providers);
  if (choice === undefined || !offersOf(defs, session).includes(choice)) {
    return render(ctx, token, session, { status: 400, message: 'Choose one of the services below.' });
  }
  const offer = defs[choice] as OfferDef;
  try {
    if (offer.start) return see(await offer.start(ctx, session, hash));
    return await connectWithToken(ctx, hash, session, offer.of, fields?.get('token') ?? '');
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    if (e.code === 'conflict') return connectRefusedPage('used');
    return render(ctx, token, session, { status: e.code === 'not_configured' ? 501 : 400, message: e.message });
  }
}

async function connectWithToken(
  ctx: AppContext,
  hash: string,
  session: ConnectSession,
  provider: ConnectSession['providers'][number],
  token: string,
): Promise<HttpResponse> {
  const body = { provider, token, ...(session.label !== undefined ? { label: session.label } : {}) };
  const connection = await createTokenConnection(ctx, body, async () => {
    const claimed = await claimConnectSession(ctx.store, ctx.clock, hash);
    if (!claimed.ok) throw new AppError('conflict', 'This connect link was already used');
    return claimed.session.endUserId;
  });
  ctx.logger.info('connect page: token connection made', { connectionId: connection.id, endUserId: connection.endUserId });
  if (session.returnTo !== undefined) return see(withQuery(session.returnTo, { connectionId: connection.id }));
  return connectedPage(
    { service: ctx.providers[connection.provider].oauth.displayName, account: connection.accountLogin, connectionId: connection.id },
    { 'cache-control': 'no-store' },
  );
}
