import { performance } from 'node:perf_hooks';
import { didYouMean } from '../domain/did-you-mean';
import * as z from 'zod';
import type { AppContext } from '../ports/app-context';
import { ConnectionRepo } from '../store/connection-repo';
import { AppError, errorCodes, InvalidInputError, type ErrorCode, type FieldProblem } from '../domain/errors';
import { fieldProblems } from '../domain/validation';
import { apiComponents } from '../domain/model-schemas';
import { assertRepositoryAllowed } from '../domain/allow-list';
import { assertCallerMayUse, callerLogFields, platformCaller, type Caller } from '../domain/caller';
import { dryRunSchema, stepIndex } from './catalog';
import type { ClientContext, ToolStep } from './tool-step';
import type { ProviderTools } from './tool-step';

/** The answer of every tool step, over HTTP and Lambda invoke alike (docs/api.md). */
export type ToolResult =
  | { ok: true; data: unknown }
  | { ok: false; error: { code: ErrorCode; message: string; details?: Record<string, unknown> } };

const errorSchema = z.object({ code: z.enum(errorCodes), message: z.string(), details: z.record(z.string(), z.unknown()).optional() });

/** The ToolResult as a schema, for the API's description: `ok` says which of the two it is. */
export const toolSuccessSchema = z.object({
  ok: z.literal(true),
  data: z.unknown().describe("The step's output: `outputSchema` in GET /tools"),
});
export const toolFailureSchema = z.object({ ok: z.literal(false), error: errorSchema });
apiComponents.add(toolFailureSchema, { id: 'ToolFailure' });
z.union([toolSuccessSchema, toolFailureSchema]) satisfies z.ZodType<ToolResult>;

export interface InvokeRequest {
  toolId: string;
  connectionId: string;
  input?: unknown;
  /** Who asks: a scoped key may use only its connections (absent: the platform, as a direct Lambda invoke). */
  caller?: Caller;
}

export const connectionIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a connection id (letters, digits, _ and -)');

function failure(error: AppError): ToolResult {
  return { ok: false, error: error.toJSON() };
}

const providerNames = { github: 'The code host', contentsnare: 'The collection service' } as const;

/**
 * The step's answer parsed with its output schema: only declared fields go out, and an
 * answer that lacks what the step promises (a redirect's empty body, an HTML page, a
 * record without its id) is the provider's failure, `upstream_error`, never a success.
 */
function declaredOutput(step: ToolStep, answer: unknown): unknown {
  // A real answer never carries `dryRun: true`; parsing with the one schema that applies names the exact field.
  const dry = step.destructive === true && (answer as { dryRun?: unknown } | null)?.dryRun === true;
  const parsed = (dry ? dryRunSchema(step) : step.output).safeParse(answer);
  if (parsed.success) return parsed.data ?? null;
  const problems = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
  const provider = providerNames[step.provider];
  // A body that was not JSON reaches the step as its text (or as nothing at all).
  const what =
    typeof answer === 'string'
      ? answer.trim() === ''
        ? 'was empty'
        : 'was text that is not JSON'
      : `was not what the step returns (${problems[0]})`;
  throw new AppError('upstream_error', `${provider}'s answer to ${step.id} ${what}`, { problems });
}

/**
 * Runs one tool step for one connection. Order matters: the tool and the input are checked
 * before any I/O (invalid input never reaches the provider), then the connection, its
 * status and its repository allow-list, and only then is a client built and the call made.
 * Never throws: every failure is a `{ok: false}` result with a stable code.
 */
export async function invokeTool(ctx: AppContext, request: InvokeRequest, tools: ProviderTools[]): Promise<ToolResult> {
  const started = performance.now();
  const { toolId, connectionId } = request;
  const caller = request.caller ?? platformCaller;
  const logger = ctx.logger.child({ toolId, connectionId, ...callerLogFields(caller) });
  const entry = typeof toolId === 'string' ? stepIndex(tools).get(toolId) : undefined;
  let result: ToolResult;
  try {
    if (!entry)
      throw new AppError(
        'not_found',
        `Unknown tool step ${String(toolId)}.${didYouMean(String(toolId), [...stepIndex(tools).keys()])} GET /tools lists the steps`,
      );
    const { step, provider } = entry;
    const problems: FieldProblem[] = [];
    const id = connectionIdSchema.safeParse(connectionId);
    if (!id.success) problems.push(...fieldProblems(id.error, 'connectionId'));
    const parsed = step.input.safeParse(request.input ?? {});
    if (!parsed.success) problems.push(...fieldProblems(parsed.error, 'input'));
    if (problems.length > 0) throw new InvalidInputError(problems);
    assertCallerMayUse(caller, connectionId);

    const connection = await new ConnectionRepo(ctx.store).get(connectionId);
    if (!connection) throw new AppError('connection_not_found', `Connection ${connectionId} does not exist`);
    if (connection.provider !== step.provider) {
      throw new InvalidInputError([
        { field: 'connectionId', message: `is a ${connection.provider} connection; ${step.id} needs a ${step.provider} connection` },
      ]);
    }
    if (connection.status === 'reconnect_required') {
      throw new AppError(
        'reconnect_required',
        `Connection ${connection.id} must be reconnected${connection.statusReason ? `: ${connection.statusReason}` : ''}`,
      );
    }
    assertRepositoryAllowed(connection, step.repositoryOf?.(parsed.data));

    const { tokens, config, fetch, clock, sleep, metrics, store } = ctx;
    const stepCtx: ClientContext = { connection, tokens, config, fetch, clock, sleep, metrics, logger, store };
    try {
      const client = await provider.client(connection, stepCtx);
      // The step sees no store: only the client factory (its limiter) does.
      const { store: _store, ...forStep } = stepCtx;
      let managed: Promise<ReadonlySet<string>> | undefined;
      const managedHookIds = () => {
        managed ??= provider.managedHookIds ? provider.managedHookIds(store) : Promise.resolve(new Set<string>());
        return managed;
      };
      const answer = await step.run(parsed.data, client, { ...forStep, managedHookIds });
      result = { ok: true, data: declaredOutput(step, answer) };
    } catch (e) {
      throw provider.mapError?.(e, ctx.clock.now()) ?? e;
    }
  } catch (e) {
    if (e instanceof AppError) result = failure(e);
    else {
      logger.error('tool step failed unexpectedly', { error: e });
      result = failure(new AppError('internal', 'The tool step failed unexpectedly; the error was logged'));
    }
  }
  const outcome = result.ok ? 'ok' : result.error.code;
  const durationMs = Math.round(performance.now() - started);
  logger.info('tool step finished', { outcome, durationMs });
  ctx.metrics.count('tool_step', 1, { toolId: entry ? entry.step.id : 'unknown', outcome });
  return result;
}
