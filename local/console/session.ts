import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/ports';

/**
 * The console's login sessions (docs/security.md "The console"). The login form posts the
 * platform key once; the browser then holds a random session token in an HttpOnly,
 * SameSite=Strict cookie (Secure when PUBLIC_URL is https). Only the token's hash is kept,
 * in memory: a restart or a logout ends every session, and a session never outlives
 * `sessionTtlMs`. Each session has its own CSRF token for the state-changing forms.
 */
export const sessionCookieName = 'console_session';
export const sessionTtlMs = 12 * 3600 * 1000;
/** Oldest sessions are dropped beyond this: logins cannot grow the process's memory without bound. */
export const maxSessions = 100;

export interface Session {
  csrf: string;
  expiresAt: number;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export class ConsoleSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly clock: Clock) {}

  /** A new session: the token for the cookie, and the session's CSRF token. */
  open(): { token: string; session: Session } {
    const token = randomBytes(32).toString('base64url');
    const session = { csrf: randomBytes(32).toString('base64url'), expiresAt: this.clock.now() + sessionTtlMs };
    this.sessions.set(sha256(token).toString('hex'), session);
    while (this.sessions.size > maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
    return { token, session };
  }

  find(token: string | undefined): Session | undefined {
    if (!token) return undefined;
    const id = sha256(token).toString('hex');
    const session = this.sessions.get(id);
    if (session && session.expiresAt <= this.clock.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  close(token: string | undefined): void {
    if (token) this.sessions.delete(sha256(token).toString('hex'));
  }
}

function secureFlag(publicUrl: string): string {
  return new URL(publicUrl).protocol === 'https:' ? '; Secure' : '';
}

export function sessionCookie(publicUrl: string, token: string): string {
  return `${sessionCookieName}=${token}; Path=/; Max-Age=${sessionTtlMs / 1000}; HttpOnly; SameSite=Strict${secureFlag(publicUrl)}`;
}

export function clearSessionCookie(publicUrl: string): string {
  return `${sessionCookieName}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secureFlag(publicUrl)}`;
}
