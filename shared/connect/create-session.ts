import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import { endUserIdSchema } from '../domain/end-user';
import { parseOrThrow } from '../domain/validation';
import { randomUrlToken } from '../oauth/pkce';
import { checkReturnTo } from '../oauth/return-to';
import { connectChoices, connectTokenHash, saveConnectSession, type ConnectSession } from '../store/connect-session-repo';

/** A connect page lives 30 minutes (docs/api.md): long enough to find a password, short enough that a leaked link soon dies. */
export const connectSessionLifetimeMs = 30 * 60 * 1000;

export const connectSessionInput = z.strictObject({
  endUserId: endUserIdSchema,
  providers: z
    .array(z.enum(connectChoices))
    .min(1, 'must offer at least one service (leave it out for all)')
    .max(connectChoices.length)
    .transform((p) => [...new Set(p)])
    .optional()
    .describe('What the page offers: `github` (OAuth, and a fine-grained token), `github_app`, `contentsnare`. Absent: all'),
  returnTo: z.string().min(1).max(2048).optional().describe('Where the browser goes once connected, with `connectionId` (or `error`)'),
  label: z.string().trim().min(1).max(200).optional().describe('The label of the connection made'),
});

export const connectSessionAnswer = z.object({
  token: z.string().describe('The session token: the only credential the page URL carries'),
  url: z.string().describe('`PUBLIC_URL/connect/{token}`: what the end user opens'),
  expiresAt: z.string().describe('ISO 8601 time'),
});

/**
 * `POST /connect/sessions`: a page for one of the platform's end users. The token is random
 * (256 bits), answered once and kept only as its hash; `returnTo` is checked now, as an OAuth
 * authorize call checks it, so the page never sends anyone to an origin not allowed.
 */
export async function createConnectSession(ctx: AppContext, body: unknown): Promise<z.output<typeof connectSessionAnswer>> {
  const input = parseOrThrow(connectSessionInput, body);
  const session: ConnectSession = {
    endUserId: input.endUserId,
    providers: input.providers ?? [...connectChoices],
    expiresAt: ctx.clock.now() + connectSessionLifetimeMs,
  };
  if (input.returnTo !== undefined) session.returnTo = checkReturnTo(input.returnTo, ctx.config.allowedReturnOrigins);
  if (input.label !== undefined) session.label = input.label;
  const token = randomUrlToken();
  await saveConnectSession(ctx.store, connectTokenHash(token), session);
  ctx.logger.info('connect page made', { endUserId: session.endUserId, providers: session.providers });
  ctx.metrics.count('connect_session_created', 1);
  return {
    token,
    url: `${ctx.config.publicUrl}/connect/${token}`,
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}
