import { readCookie } from '../../shared/oauth/start';
import type { RequestHead } from '../../shared/http/types';
import { isPlatformKey } from '../../shared/config/platform-keys';
import { sameSecret } from '../../shared/domain/same-secret';
import { bearerToken } from '../../shared/http/bearer';
import { sessionCookieName, type ConsoleSessions, type Session } from './session';

/** Who is at the console: a browser with a session, a client with the Bearer key, or nobody. */
export type ConsoleVisitor = { kind: 'session'; token: string; session: Session } | { kind: 'bearer' } | { kind: 'anonymous' };

/** A visitor signed in (a session or the Bearer key): whom a page or an action is for. */
export type SignedInVisitor = Exclude<ConsoleVisitor, { kind: 'anonymous' }>;

export async function identify(
  head: RequestHead,
  sessions: ConsoleSessions,
  platformApiKey: () => Promise<string>,
): Promise<ConsoleVisitor> {
  const bearer = bearerToken(head.headers.authorization);
  if (bearer !== undefined && isPlatformKey(bearer, await platformApiKey())) return { kind: 'bearer' };
  const token = readCookie(head.headers.cookie, sessionCookieName);
  const session = sessions.find(token);
  return session && token ? { kind: 'session', token, session } : { kind: 'anonymous' };
}

/**
 * Same-origin check of a state-changing request (CSRF defence one): a browser says where a
 * request comes from in `Sec-Fetch-Site` and `Origin`; either, when present, must name this
 * server (its PUBLIC_URL, or the host the browser addressed). A client that sends neither
 * (curl with the Bearer key) is not a browser a foreign page could drive.
 */
export function sameOrigin(head: RequestHead, publicUrl: string): boolean {
  const site = head.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = head.headers.origin;
  if (origin === undefined) return true;
  const own = new Set([new URL(publicUrl).origin]);
  if (head.headers.host) own.add(`http://${head.headers.host}`).add(`https://${head.headers.host}`);
  return own.has(origin);
}

/**
 * Whether a state-changing console action may run: a session with its CSRF token (defence
 * two: the token is in the page only), or the Bearer key; always from the same origin.
 */
export function mayAct(visitor: ConsoleVisitor, head: RequestHead, publicUrl: string, csrf: string | undefined): boolean {
  if (!sameOrigin(head, publicUrl)) return false;
  if (visitor.kind === 'bearer') return true;
  return visitor.kind === 'session' && csrf !== undefined && sameSecret(csrf, visitor.session.csrf);
}
