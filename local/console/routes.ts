import type { CircuitBoard } from '../../shared/dispatch/circuit-board';
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import type { AppContext } from '../../shared/ports/app-context';
import { AppError } from '../../shared/domain/errors';
import { prefersHtml } from '../../shared/http/html';
import { errorResponse, toErrorResponse } from '../../shared/http/responses';
import type { HttpResponse, Route, RouteRequest } from '../../shared/http/types';
import { catalog } from '../../shared/tools/catalog';
import { invokeTool, type ToolResult } from '../../shared/tools/invoke';
import { allProviderTools } from '../../functions/tool-step/registry';
import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { consoleScript, consoleStyle } from './assets';
import { consoleData, eventQueryOf, eventsPage } from './console-data';
import { replayEventFor } from '../../shared/events/event-history-api';
import { platformCaller } from '../../shared/domain/caller';
import { identify, mayAct, sameOrigin, type Caller } from './guard';
import { loginPage, consolePage, eventRows } from './render';
import { isPlatformKey } from '../../shared/config/platform-keys';
import { clearSessionCookie, ConsoleSessions, sessionCookie } from './session';
import { LoginThrottle } from './login-throttle';
import type { RecentEvents } from './recent-events';
import { localOnlySpec } from '../../shared/http/openapi';
import { formFields, inputFromForm } from './tool-form';

/**
 * The console (GET /, docs/console.md): the local runtime's state for a person, behind the
 * platform key (its login form, or a Bearer header). Its actions are the runtime's own use
 * cases: its events are the platform API's `GET /events` and `GET /events/{id}`, replay is
 * `POST /events/{id}/replay` (shared/events/), redrive is the dead-letter queue's
 * redrive (as `npm run dlq`), a tool form calls invokeTool (as POST /tools/{id}/invoke).
 * Security: docs/security.md "The console".
 */

/** No inline script or style; the script and stylesheet are this server's files; forms post here only; the script fetches from here only (live updates). */
function csp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
}

function html(status: number, body: string, nonce: string, extra: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp(nonce),
      'x-frame-options': 'DENY',
      // same-origin, not no-referrer: under no-referrer a browser posts the forms with `Origin: null`.
      'referrer-policy': 'same-origin',
      ...extra,
    },
    body,
  };
}

const see = (location: string, extra: Record<string, string> = {}): HttpResponse => ({
  status: 303,
  headers: { location, ...extra },
  body: '',
});
const nonce = () => randomBytes(18).toString('base64url');
const idSchema = z.string().min(1).max(128);

function form(req: RouteRequest): URLSearchParams {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    throw new AppError('invalid_input', 'Console forms post application/x-www-form-urlencoded', {
      fields: [{ field: '(body)', message: 'expected a form' }],
    });
  }
  return new URLSearchParams(req.body.toString('utf8'));
}

const forbidden = () =>
  errorResponse(new AppError('forbidden', 'Cross-site request, or a missing or wrong CSRF token: use the console page itself'));

export function consoleRoutes(ctx: AppContext, queues: LocalQueues, recent: RecentEvents, circuit?: CircuitBoard): Route[] {
  const sessions = new ConsoleSessions(ctx.clock);
  const tools = allProviderTools();
  const toolCatalog = catalog(tools);
  const publicUrl = ctx.config.publicUrl;

  const throttle = new LoginThrottle(ctx.clock, ctx.logger);

  /** A client guessing keys: told when to try again, its key not compared. */
  const throttled = (req: RouteRequest, retryAfter: number): HttpResponse => {
    const message = `Too many wrong keys from this client; try again in ${retryAfter} s`;
    const headers = { 'retry-after': String(retryAfter) };
    if (!prefersHtml(req.headers.accept)) {
      const answer = errorResponse(new AppError('rate_limited', message, { retryAfter }));
      return { ...answer, headers: { ...answer.headers, ...headers } };
    }
    const n = nonce();
    return html(429, loginPage(n, message), n, headers);
  };

  const unauthorized = (req: RouteRequest, error?: string): HttpResponse => {
    if (!prefersHtml(req.headers.accept)) {
      return errorResponse(
        new AppError(
          'unauthorized',
          'Missing or wrong bearer key (Authorization: Bearer <PLATFORM_API_KEY>), or sign in on the console page',
        ),
      );
    }
    const n = nonce();
    return html(401, loginPage(n, error), n);
  };

  const page = async (
    caller: Exclude<Caller, { kind: 'anonymous' }>,
    extra: {
      selectedTool?: string;
      toolResult?: ToolResult;
      toolForm?: URLSearchParams;
      notice?: string;
      noticeSubject?: string;
      status?: number;
      query?: URLSearchParams;
    },
  ) => {
    const n = nonce();
    // A Bearer caller has no session: its forms carry no token and act through the Bearer header alone.
    const csrf = caller.kind === 'session' ? caller.session.csrf : '';
    const data = await consoleData(ctx, queues, recent, extra.query ?? new URLSearchParams(), circuit);
    return html(extra.status ?? 200, consolePage(data, { csrf, nonce: n, tools: toolCatalog, ...extra }), n);
  };

  /** A state-changing action: signed in (session + CSRF token, or Bearer) and same-origin. */
  const action =
    (run: (req: RouteRequest, caller: Exclude<Caller, { kind: 'anonymous' }>, fields: URLSearchParams) => Promise<HttpResponse>) =>
    async (req: RouteRequest) => {
      const caller = await identify(req, sessions, ctx.platformApiKey);
      if (caller.kind === 'anonymous') return unauthorized(req);
      const fields = form(req);
      if (!mayAct(caller, req, publicUrl, fields.get('csrf') ?? undefined)) return forbidden();
      try {
        return await run(req, caller, fields);
      } catch (e) {
        if (!(e instanceof AppError)) ctx.logger.error('console action failed', { path: req.path, error: e });
        return toErrorResponse(e);
      }
    };

  const asset =
    (body: string, type: string): Route['handle'] =>
    async () => ({ status: 200, headers: { 'content-type': `${type}; charset=utf-8` }, body });

  return [
    {
      method: 'GET',
      pattern: '/console/console.js',
      spec: localOnlySpec('The console script'),
      auth: 'none',
      handle: asset(consoleScript, 'text/javascript'),
    },
    {
      method: 'GET',
      pattern: '/console/console.css',
      spec: localOnlySpec('The console style sheet'),
      auth: 'none',
      handle: asset(consoleStyle, 'text/css'),
    },
    {
      method: 'GET',
      pattern: '/',
      spec: localOnlySpec('The console page'),
      auth: 'none',
      handle: async (req) => {
        const caller = await identify(req, sessions, ctx.platformApiKey);
        if (caller.kind === 'anonymous') return unauthorized(req);
        const tool = req.query.get('tool') ?? undefined;
        const subject = req.query.get('subject');
        return page(caller, {
          ...(tool ? { selectedTool: tool } : {}),
          ...(req.query.get('done') ? { notice: req.query.get('done') ?? '' } : {}),
          ...(subject && idSchema.safeParse(subject).success ? { noticeSubject: subject } : {}),
          query: req.query,
        });
      },
    },
    {
      // The live updates: the rows of the events table as the page's filters select them (console.js polls it).
      method: 'GET',
      pattern: '/console/events/rows',
      auth: 'none',
      spec: localOnlySpec("The console's live event rows"),
      handle: async (req) => {
        const caller = await identify(req, sessions, ctx.platformApiKey);
        if (caller.kind === 'anonymous') return unauthorized(req);
        const csrf = caller.kind === 'session' ? caller.session.csrf : '';
        const query = eventQueryOf(req.query);
        query.delete('cursor');
        const n = nonce();
        return html(200, eventRows(await eventsPage(ctx, queues, query), csrf), n, { 'cache-control': 'no-store' });
      },
    },
    {
      method: 'POST',
      pattern: '/console/login',
      spec: localOnlySpec('Console sign-in with the platform key'),
      auth: 'none',
      maxBodyBytes: 4096,
      handle: async (req) => {
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
    },
    {
      method: 'POST',
      pattern: '/console/logout',
      spec: localOnlySpec('Console sign-out'),
      auth: 'none',
      maxBodyBytes: 4096,
      handle: action(async (_req, caller) => {
        if (caller.kind === 'session') sessions.close(caller.token);
        return see('/', { 'set-cookie': clearSessionCookie(publicUrl) });
      }),
    },
    {
      method: 'POST',
      pattern: '/console/events/:eventId/replay',
      spec: localOnlySpec('Console: replay a recent event'),
      auth: 'none',
      maxBodyBytes: 4096,
      handle: action(async (req, _caller, fields) => {
        const replayed = await replayEventFor(ctx, platformCaller, idSchema.parse(req.params.eventId));
        // Back to the page the person was on (its filters), with the notice in the events section.
        const back = eventQueryOf(new URLSearchParams(fields.get('back') ?? ''));
        back.delete('cursor');
        back.set('done', 'replayed');
        back.set('subject', replayed.id);
        return see(`/?${back.toString()}#events`);
      }),
    },
    {
      method: 'POST',
      pattern: '/console/dlq/redrive',
      spec: localOnlySpec('Console: redrive dead letters'),
      auth: 'none',
      maxBodyBytes: 4096,
      handle: action(async (_req, _caller, fields) => {
        const id = fields.get('messageId');
        const ids = id ? [idSchema.parse(id)] : undefined;
        // The one redrive (as `npm run dlq -- --redrive` through POST /admin/dlq/redrive).
        const redriven = await queues.deadLetters.redrive(ids);
        ctx.logger.info('dead letters redriven', { redriven, ids, from: 'console' });
        return see(`/?done=${redriven > 0 ? 'redriven' : 'nothing_redriven'}#dlq`);
      }),
    },
    {
      method: 'POST',
      pattern: '/console/tools/:toolId',
      spec: localOnlySpec('Console: run a tool step from its form'),
      auth: 'none',
      maxBodyBytes: lambdaMaxBodyBytes,
      handle: action(async (req, caller, fields) => {
        const toolId = req.params.toolId ?? '';
        const entry = toolCatalog.find((t) => t.id === toolId);
        let result: ToolResult;
        try {
          if (!entry) throw new AppError('not_found', `Unknown tool step ${toolId}`);
          const input = inputFromForm(formFields(entry.inputSchema), fields);
          result = await invokeTool(ctx, { toolId, connectionId: fields.get('connectionId') ?? '', input }, tools);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          result = { ok: false, error: e.toJSON() };
        }
        return page(caller, { selectedTool: toolId, toolResult: result, toolForm: fields });
      }),
    },
  ];
}
