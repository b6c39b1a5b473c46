import type { AppContext } from '../ports/app-context';
import { claimConnectSession } from '../store/connect-session-repo';
import type { OAuthStateRecord } from './state-store';

/** The end user a flow's connection is made for: none outside a connect page, or refused when the page's session was spent meanwhile. */
export type ConnectPageClaim = { ok: true; endUserId?: string } | { ok: false };

/**
 * A flow started from a connect page spends the page's session just before its connection is
 * stored, so one page makes one connection: a second flow from the same page (another tab,
 * the back button) is refused then, after its account was read but before anything is kept.
 */
export async function claimConnectPage(ctx: AppContext, record: OAuthStateRecord): Promise<ConnectPageClaim> {
  if (record.connectSession === undefined) return { ok: true };
  const claimed = await claimConnectSession(ctx.store, ctx.clock, record.connectSession);
  if (!claimed.ok) {
    ctx.logger.warn('connect page flow refused: its session is spent or expired', { why: claimed.why });
    return { ok: false };
  }
  return { ok: true, endUserId: claimed.session.endUserId };
}
