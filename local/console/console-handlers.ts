import * as z from 'zod';
import type { CircuitBoard } from '../../shared/dispatch/circuit-board';
import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { toErrorResponse } from '../../shared/http/responses';
import type { RouteHandlers } from '../../shared/http/route-table';
import type { HttpResponse, RouteRequest } from '../../shared/http/types';
import type { CatalogEntry } from '../../shared/tools/catalog';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import type { ProviderTools } from '../../shared/tools/tool-step';
import { replayEventFor } from '../../shared/events/event-history-api';
import { platformCaller } from '../../shared/domain/caller';
import { isPlatformKey } from '../../shared/config/platform-keys';
import { consoleData, eventQueryOf, eventsPage } from './console-data';
import { forbidden, form, html, nonce, see, throttled, unauthorized } from './console-answers';
import { identify, mayAct, sameOrigin, type SignedInVisitor } from './guard';
import type { LoginThrottle } from './login-throttle';
import type { RecentEvents } from './recent-events';
import { consolePage, eventRows } from './render';
import type { consoleRouteTable } from './route-table';
import { clearSessionCookie, type ConsoleSessions, sessionCookie } from './session';
import { formFields, inputFromForm } from './tool-form';
import type { FormState } from './html-parts';
import type { Message } from './notices';
import type { TriggerChoice } from './subscribe-form';
import type { CreatedKey } from '../../shared/keys/scoped-keys';

const idSchema = z.string().min(1).max(128);

type Handlers = RouteHandlers<typeof consoleRouteTable>;

/** What the console's handlers share: the runtime's ports, its sessions and login throttle, the tool catalog. */
export interface ConsoleDeps {
  ctx: AppContext;
  queues: LocalQueues;
  recent: RecentEvents;
  circuit?: CircuitBoard;
  sessions: ConsoleSessions;
  throttle: LoginThrottle;
  tools: ProviderTools[];
  toolCatalog: CatalogEntry[];
  /** The triggers the subscribe form offers. */
  triggers: TriggerChoice[];
}

/** What the page shows beyond the runtime's state: a selected tool and its result, a notice, a refused form. */
export interface PageExtra {
  selectedTool?: string;
  toolResult?: ToolResult;
  toolForm?: URLSearchParams;
  notice?: string;
  noticeSubject?: string;
  status?: number;
  query?: URLSearchParams;
  message?: Message;
  formState?: FormState;
  newKey?: CreatedKey;
  subscribeTrigger?: string;
  headers?: Record<string, string>;
}

export async function page(deps: ConsoleDeps, visitor: SignedInVisitor, extra: PageExtra): Promise<HttpResponse> {
  const n = nonce();
  // A Bearer visitor has no session: its forms carry no token and act through the Bearer header alone.
  const csrf = visitor.kind === 'session' ? visitor.session.csrf : '';
  const data = await consoleData(deps.ctx, deps.queues, deps.recent, extra.query ?? new URLSearchParams(), deps.circuit);
  const { headers, ...options } = extra;
  // The connect form's answer goes on to the connect page at PUBLIC_URL: a form's redirect must be allowed too.
  const formOrigins = [new URL(deps.ctx.config.publicUrl).origin];
  const body = consolePage(data, { csrf, nonce: n, tools: deps.toolCatalog, triggers: deps.triggers, ...options });
  return html(extra.status ?? 200, body, n, headers, formOrigins);
}

export type Action = (req: RouteRequest, visitor: SignedInVisitor, fields: URLSearchParams) => Promise<HttpResponse>;

/** A state-changing action: signed in (session + CSRF token, or Bearer) and same-origin. */
export function action(deps: ConsoleDeps, run: Action) {
  const { ctx, sessions } = deps;
  return async (req: RouteRequest): Promise<HttpResponse> => {
    const visitor = await identify(req, sessions, ctx.platformApiKey);
    if (visitor.kind === 'anonymous') return unauthorized(req);
    const fields = form(req);
    if (!mayAct(visitor, req, ctx.config.publicUrl, fields.get('csrf') ?? undefined)) return forbidden();
    try {
      return await run(req, visitor, fields);
    } catch (e) {
      if (!(e instanceof AppError)) ctx.logger.error('console action failed', { path: req.path, error: e });
      return toErrorResponse(e);
    }
  };
}

/** `GET /` and its live event rows: for a signed-in visitor only. */
export function viewHandlers(deps: ConsoleDeps): Pick<Handlers, 'page' | 'eventRows'> {
  const { ctx, sessions } = deps;
  return {
    page: async (req) => {
      const visitor = await identify(req, sessions, ctx.platformApiKey);
      if (visitor.kind === 'anonymous') return unauthorized(req);
      const tool = req.query.get('tool') ?? undefined;
      const subject = req.query.get('subject');
      const subscribe = req.query.get('subscribe') ?? undefined;
      return page(deps, visitor, {
        ...(tool ? { selectedTool: tool } : {}),
        ...(subscribe ? { subscribeTrigger: subscribe } : {}),
        ...(req.query.get('done') ? { notice: req.query.get('done') ?? '' } : {}),
        ...(subject && idSchema.safeParse(subject).success ? { noticeSubject: subject } : {}),
        query: req.query,
      });
    },
    eventRows: async (req) => {
      const visitor = await identify(req, sessions, ctx.platformApiKey);
      if (visitor.kind === 'anonymous') return unauthorized(req);
      const csrf = visitor.kind === 'session' ? visitor.session.csrf : '';
      const query = eventQueryOf(req.query);
      query.delete('cursor');
      const n = nonce();
      return html(200, eventRows(await eventsPage(ctx, deps.queues, query), csrf), n, { 'cache-control': 'no-store' });
    },
  };
}

/** Sign-in with the platform key (throttled per client) and sign-out. */
export function sessionHandlers(deps: ConsoleDeps): Pick<Handlers, 'login' | 'logout'> {
  const { ctx, sessions, throttle } = deps;
  const publicUrl = ctx.config.publicUrl;
  return {
    login: async (req) => {
      if (!sameOrigin(req, publicUrl)) return forbidden();
      const client = req.clientAddress ?? 'unknown';
      const waitMs = throttle.begin(client);
      if (waitMs > 0) return throttled(req, Math.ceil(waitMs / 1000));
      const key = form(req).get('key') ?? '';
      if (!isPlatformKey(key, await ctx.platformApiKey())) {
        throttle.failed(client);
        return unauthorized(req, 'That is not the platform key.');
      }
      throttle.succeeded(client);
      const { token } = sessions.open();
      ctx.logger.info('console sign-in');
      return see('/', { 'set-cookie': sessionCookie(publicUrl, token) });
    },
    logout: action(deps, async (_req, visitor) => {
      if (visitor.kind === 'session') sessions.close(visitor.token);
      return see('/', { 'set-cookie': clearSessionCookie(publicUrl) });
    }),
  };
}

/** The console's actions: the runtime's own use cases (replay, redrive, a tool step). */
export function actionHandlers(deps: ConsoleDeps): Pick<Handlers, 'replay' | 'redrive' | 'runTool'> {
  const { ctx, queues } = deps;
  return {
    replay: action(deps, async (req, _visitor, fields) => {
      const replayed = await replayEventFor(ctx, platformCaller, idSchema.parse(req.params.eventId));
      // Back to the page the person was on (its filters), with the notice in the events section.
      const back = eventQueryOf(new URLSearchParams(fields.get('back') ?? ''));
      back.delete('cursor');
      back.set('done', 'replayed');
      back.set('subject', replayed.id);
      return see(`/?${back.toString()}#events`);
    }),
    redrive: action(deps, async (_req, _visitor, fields) => {
      const id = fields.get('messageId');
      const ids = id ? [idSchema.parse(id)] : undefined;
      // The one redrive (as `npm run dlq -- --redrive` through POST /admin/dlq/redrive).
      const redriven = await queues.deadLetters.redrive(ids);
      ctx.logger.info('dead letters redriven', { redriven, ids, from: 'console' });
      return see(`/?done=${redriven > 0 ? 'redriven' : 'nothing_redriven'}#dlq`);
    }),
    runTool: action(deps, async (req, visitor, fields) => {
      const toolId = req.params.toolId ?? '';
      const entry = deps.toolCatalog.find((t) => t.id === toolId);
      let result: ToolResult;
      try {
        if (!entry) throw new AppError('not_found', `Unknown tool step ${toolId}`);
        const input = inputFromForm(formFields(entry.inputSchema), fields);
        result = await invokeTool(ctx, { toolId, connectionId: fields.get('connectionId') ?? '', input }, deps.tools);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        result = { ok: false, error: e.toJSON() };
      }
      return page(deps, visitor, { selectedTool: toolId, toolResult: result, toolForm: fields });
    }),
  };
}
