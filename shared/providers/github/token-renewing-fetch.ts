import type { Fetch } from '../../ports';
import { actsAsUser, type CodeHostAccess } from './code-host-access';

type Init = NonNullable<Parameters<Fetch>[1]>;

/** Bodies that can be sent a second time as they are (a stream is spent by the first send). */
function replayable(body: Init['body']): boolean {
  return body === undefined || body === null || typeof body === 'string' || body instanceof URLSearchParams || body instanceof Uint8Array;
}

function withToken(init: Init | undefined, token: string): Init {
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => {
    headers[k] = v;
  });
  // Octokit says `token`, our plain calls `Bearer`: the code host takes both; keep the caller's word.
  const scheme = /^(\S+)\s/.exec(headers.authorization ?? '')?.[1] ?? 'Bearer';
  headers.authorization = `${scheme} ${token}`;
  return { ...init, headers };
}

/** The request's path below the API base (`/api/v3` on enterprise servers); '' when it is not under it. */
function pathUnderBase(input: Parameters<Fetch>[0], baseUrl: string): string {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || !url.pathname.startsWith(prefix)) return '';
  return url.pathname.slice(prefix.length) || '/';
}

/**
 * Every request carries `access.token` (whatever authorization the caller set); a 401 is
 * answered by `access.renew` and the request is sent once more with the token it gives.
 * When there is no newer token, or the body cannot be sent again, the 401 is the answer.
 */
export function tokenRenewingFetch(inner: Fetch, access: CodeHostAccess): Fetch {
  return (async (input: Parameters<Fetch>[0], init?: Init) => {
    // A GitHub App connection: what only a person can do goes with the user's token.
    if (access.asUser && actsAsUser(pathUnderBase(input, access.baseUrl))) {
      return tokenRenewingFetch(inner, await access.asUser())(input, init);
    }
    const sent = access.token;
    const res = await inner(input, withToken(init, sent));
    if (res.status !== 401 || !access.renew || !replayable(init?.body) || input instanceof Request) return res;
    const next = await access.renew(sent);
    if (next === undefined) return res;
    await res.body?.cancel().catch(() => undefined);
    return inner(input, withToken(init, next));
  }) as Fetch;
}
