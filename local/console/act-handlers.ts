import * as z from 'zod';
import { createConnectSession } from '../../shared/connect/create-session';
import { AppError, type FieldProblem } from '../../shared/domain/errors';
import { statusByCode } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { HttpResponse, RouteRequest } from '../../shared/http/types';
import { createScopedKey, revokeScopedKey } from '../../shared/keys/scoped-keys';
import { SubscriptionRepo } from '../../shared/store/subscription-repo';
import { createSubscription } from '../../shared/subscriptions/create-subscription';
import { deleteSubscription } from '../../shared/subscriptions/delete-subscription';
import { ownIntakeSender } from '../admin/own-intake';
import { sendExampleTrigger, type SendExampleResult } from '../admin/send-example';
import { html, nonce, see } from './console-answers';
import { action, page, type ConsoleDeps } from './console-handlers';
import { identify, type SignedInVisitor } from './guard';
import type { FormState } from './html-parts';
import { keyBodyFromForm } from './key-form';
import { connectLanding } from './render-landing';
import type { consoleRouteTable } from './route-table';
import { subscriptionBodyFromForm } from './subscribe-form';

type Handlers = RouteHandlers<typeof consoleRouteTable>;
type ActRoutes = 'connect' | 'connected' | 'subscribe' | 'unsubscribe' | 'sendExample' | 'createKey' | 'revokeKey';

const idSchema = z.string().min(1).max(128);
const subjectSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/);

/** The page again with a form the service refused: what was posted, the message, and each field it named. */
function refused(deps: ConsoleDeps, visitor: SignedInVisitor, form: FormState['form'], values: URLSearchParams, e: AppError) {
  const problems = (e.details?.fields as FieldProblem[] | undefined) ?? [];
  values.delete('csrf');
  const extra = form === 'subscribe' ? { subscribeTrigger: values.get('trigger') ?? '' } : {};
  return page(deps, visitor, { status: statusByCode[e.code], formState: { form, values, message: e.message, problems }, ...extra });
}

/** An AppError becomes the refused form; anything else is the runtime's own failure. */
async function orRefused(run: () => Promise<HttpResponse>, refuse: (e: AppError) => Promise<HttpResponse>): Promise<HttpResponse> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    return refuse(e);
  }
}

/**
 * Where the connect page sends the browser back: the console's landing, on the origin the
 * browser addressed when it may be returned to (ALLOWED_RETURN_ORIGINS), else on PUBLIC_URL's;
 * none when neither is allowed (the page then ends on its own "connected").
 */
function returnTo(deps: ConsoleDeps, req: RouteRequest): string | undefined {
  const allowed = deps.ctx.config.allowedReturnOrigins;
  const addressed = req.headers.host ? `${new URL(deps.ctx.config.publicUrl).protocol}//${req.headers.host}` : undefined;
  const origin = [addressed, new URL(deps.ctx.config.publicUrl).origin].find((o) => o !== undefined && allowed.includes(o));
  return origin === undefined ? undefined : `${origin}/console/connected`;
}

/** What an example send did, in words for the subscriptions section. */
function sentMessage(result: SendExampleResult): { text: string; bad: boolean } {
  if (result.kind === 'enqueued') {
    return { text: `Example queued for ${result.subscriptionId} (${result.eventIds.join(', ')}): ${result.reason}`, bad: false };
  }
  const ok = result.intake.status >= 200 && result.intake.status < 300;
  const answer = typeof result.intake.body === 'string' ? result.intake.body : JSON.stringify(result.intake.body);
  return {
    text: `Example ${result.event} sent to ${result.subscriptionId}: the intake answered ${result.intake.status} ${answer.slice(0, 300)}`,
    bad: !ok,
  };
}

/** Connect through the connect page, and the way back from it. */
function connectHandlers(deps: ConsoleDeps): Pick<Handlers, 'connect' | 'connected'> {
  const { ctx } = deps;
  return {
    connect: action(deps, async (req, visitor, fields) => {
      const back = returnTo(deps, req);
      const label = fields.get('label')?.trim();
      const body = { endUserId: fields.get('endUserId')?.trim() ?? '', ...(label ? { label } : {}), ...(back ? { returnTo: back } : {}) };
      return orRefused(
        async () => {
          const session = await createConnectSession(ctx, body);
          ctx.logger.info('console: connect page opened', { endUserId: body.endUserId });
          return see(session.url, { 'cache-control': 'no-store' });
        },
        (e) => refused(deps, visitor, 'connect', fields, e),
      );
    }),
    connected: async (req) => {
      const connectionId = req.query.get('connectionId') ?? '';
      const error = req.query.get('error') ?? '';
      const back = new URLSearchParams(
        subjectSchema.safeParse(connectionId).success
          ? { done: 'connected', subject: connectionId }
          : { done: 'connect_failed', ...(subjectSchema.safeParse(error).success ? { subject: error } : {}) },
      );
      const to = `/?${back.toString()}#connections`;
      const visitor = await identify(req, deps.sessions, ctx.platformApiKey);
      if (visitor.kind !== 'anonymous') return see(to);
      // Back from another site (the service's authorization), a browser withholds the SameSite=Strict
      // session cookie; a navigation from this page is same-site, and carries it.
      const n = nonce();
      return html(200, connectLanding(to, n), n, { 'cache-control': 'no-store' });
    },
  };
}

/** Subscribe, delete a subscription, send a subscription its trigger's example. */
function subscriptionHandlers(deps: ConsoleDeps): Pick<Handlers, 'subscribe' | 'unsubscribe' | 'sendExample'> {
  const { ctx } = deps;
  return {
    subscribe: action(deps, async (_req, visitor, fields) =>
      orRefused(
        async () => {
          const made = await createSubscription(ctx, subscriptionBodyFromForm(fields));
          ctx.logger.info('console: subscribed', { subscriptionId: made.id, trigger: made.trigger, existing: made.existing === true });
          const done = made.existing ? 'already_subscribed' : 'subscribed';
          return see(`/?done=${done}&subject=${encodeURIComponent(made.id)}#subscriptions`);
        },
        (e) => refused(deps, visitor, 'subscribe', fields, e),
      ),
    ),
    unsubscribe: action(deps, async (req, visitor) => {
      const id = idSchema.parse(req.params.subscriptionId);
      const deleted = await deleteSubscription(ctx, id);
      if (deleted.warning) {
        const text = `Subscription ${id} deleted; ${deleted.warning}`;
        return page(deps, visitor, { message: { section: 'subscriptions', text, bad: true } });
      }
      return see(`/?done=unsubscribed&subject=${encodeURIComponent(id)}#subscriptions`);
    }),
    sendExample: action(deps, async (req, visitor) => {
      const id = idSchema.parse(req.params.subscriptionId);
      const sub = await new SubscriptionRepo(ctx.store).get(id);
      if (!sub) throw new AppError('not_found', `No subscription ${id}`);
      return orRefused(
        async () => {
          const result = await sendExampleTrigger(ownIntakeSender(ctx), sub.trigger, sub.id);
          ctx.logger.info('example trigger sent', { trigger: sub.trigger, subscriptionId: sub.id, kind: result.kind, from: 'console' });
          return page(deps, visitor, { message: { section: 'subscriptions', ...sentMessage(result) } });
        },
        (e) => page(deps, visitor, { status: statusByCode[e.code], message: { section: 'subscriptions', text: e.message, bad: true } }),
      );
    }),
  };
}

/** Make a scoped key (its secret on the answer only) and revoke one. */
function keyHandlers(deps: ConsoleDeps): Pick<Handlers, 'createKey' | 'revokeKey'> {
  const { ctx } = deps;
  return {
    createKey: action(deps, async (_req, visitor, fields) =>
      orRefused(
        async () => {
          const newKey = await createScopedKey(ctx, keyBodyFromForm(fields));
          ctx.logger.info('console: scoped key made', { keyId: newKey.id });
          // The secret is in this answer only: never in a URL, never cached.
          return page(deps, visitor, { status: 201, newKey, headers: { 'cache-control': 'no-store' } });
        },
        (e) => refused(deps, visitor, 'key', fields, e),
      ),
    ),
    revokeKey: action(deps, async (req) => {
      const { id } = await revokeScopedKey(ctx.store, idSchema.parse(req.params.keyId));
      ctx.logger.info('console: scoped key revoked', { keyId: id });
      return see(`/?done=revoked&subject=${encodeURIComponent(id)}#keys`);
    }),
  };
}

/** The console's acting forms: connect, subscribe and unsubscribe, send an example, make and revoke keys. */
export function actHandlers(deps: ConsoleDeps): Pick<Handlers, ActRoutes> {
  return { ...connectHandlers(deps), ...subscriptionHandlers(deps), ...keyHandlers(deps) };
}
