import * as z from 'zod';
import { contentSnareIdentityBounds } from '../../../domain/account-identity';
import { accountAnswer, splitScopes, type AccountIdentity, type Identify } from '../../../oauth/identify';

/**
 * `GET /partner_api/v1/me` (the partner API reference): documented only with `full_name`; an
 * `email` is likely (Inf) and preferred as the name shown when present.
 */
const contentSnareMeSchema = z.looseObject({
  email: z.string().trim().min(3).optional().catch(undefined),
  full_name: z.string().trim().min(1).optional().catch(undefined),
});

/**
 * The collection service's user behind the new token: `GET /partner_api/v1/me` (no scope
 * needed), for the connection's name only. It answers who authorised, not which account
 * (another admin of the same account is another user; a user may rename themselves), so no
 * account id is taken from it. Its failure does not fail the connect: the token works
 * without it, and the connection says its identity is unknown.
 */
export const identifyContentSnare: Identify = async ({ config, fetch }, answer) => {
  const scopes = splitScopes(answer.token.scope);
  const unknown = (why: string): AccountIdentity => ({ accountLogin: 'unknown', unknownBecause: why, ...(scopes ? { scopes } : {}) });
  let res: Response;
  try {
    res = await fetch(`${config.contentsnare.apiUrl}/partner_api/v1/me`, {
      headers: { authorization: `Bearer ${answer.token.accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
  } catch {
    return unknown('GET /me could not be reached');
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    return unknown(`GET /me answered HTTP ${res.status}`);
  }
  let body: unknown;
  try {
    body = await accountAnswer(res);
  } catch {
    return unknown('GET /me answered what is not JSON within its size limit');
  }
  // A name past its bound is not cut short (a cut name could be another user's): it is unknown.
  for (const [field, max] of Object.entries(contentSnareIdentityBounds)) {
    const value = (body as Record<string, unknown> | undefined)?.[field];
    if (typeof value === 'string' && value.length > max) return unknown(`GET /me answered a ${field} longer than ${max} characters`);
  }
  const me = contentSnareMeSchema.safeParse(body);
  const accountLogin = me.success ? (me.data.email ?? me.data.full_name) : undefined;
  if (accountLogin === undefined) return unknown('GET /me named nobody (no full_name or email)');
  return { accountLogin, ...(scopes ? { scopes } : {}) };
};
