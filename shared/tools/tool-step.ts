import * as z from 'zod';
import type { Connection, Provider } from '../domain/model';
import type { Logger } from '../observability/logger';
import type { StepPorts } from '../ports/app-context';
import type { AppError } from '../domain/errors';
import type { Store } from '../ports';
import type { Toolset } from './toolsets';

/**
 * What a step's `run` receives besides its validated input: the connection and the few
 * ports steps use (its access tokens, configuration, fetch, clock, sleep, metrics), with
 * a logger already bound to the step and the connection. No store, queue or secrets.
 */
export interface StepContext extends StepPorts {
  connection: Connection;
  logger: Logger;
  /**
   * The ids of the webhooks the product itself registered at this step's provider (every
   * connection's): the API-call steps refuse to read, change or delete them, and leave them
   * out of hook lists. Read on first call only; absent outside `invokeTool`: none.
   */
  managedHookIds?: () => Promise<ReadonlySet<string>>;
}

/**
 * What a provider's client factory receives: a step's context, and the store its
 * per-account limiter coordinates on (the collection service's rate limits are shared
 * by every process through the table).
 */
export interface ClientContext extends StepContext {
  store: Store;
}

/**
 * What a step needs of the connection's grant, published by `GET /tools`. Scopes and
 * permissions are all needed together (an empty list: none beyond a valid token).
 */
export interface StepPermissions {
  /** Fine-grained token / GitHub App permissions, e.g. `{issues: 'write'}` (code host only). */
  fineGrained?: Record<string, 'read' | 'write'>;
  /**
   * OAuth scopes. On the code host, `repo` covers private repositories; `public_repo` is
   * enough where only public ones are touched, and reads of public ones need none.
   */
  oauthScopes: string[];
  /** Where the need depends on the call (API Call steps): what decides it. */
  note?: string;
}

/**
 * One tool step: its id (docs/api.md), its zod input schema, its zod output schema (the
 * catalog's JSON Schemas are generated from both), the permissions it needs, and the
 * provider call. `run` hands back the provider's answer as it came, shaped as the output
 * schema expects; the invoker parses it with that schema, which keeps the declared fields
 * only and refuses an answer that lacks what the step promises (`upstream_error`).
 * `Client` is the provider's API client, built per call by the provider's client factory.
 */
export interface ToolStep<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, Client = unknown> {
  id: string;
  provider: Provider;
  title: string;
  description: string;
  input: S;
  output: O;
  permissions: StepPermissions;
  /** The group it is listed in (toolsets.ts): `/mcp` lists only the toolsets a client asks for. */
  toolset: Toolset;
  /** Steps that delete or overwrite accept `dryRun` and then describe the request instead. */
  destructive?: boolean;
  /** The `owner/name` repository the input addresses, for the connection's allow-list. */
  repositoryOf?(input: z.output<S>): string | undefined;
  run(input: z.output<S>, client: Client, ctx: StepContext): Promise<unknown>;
}

/** Builds the provider's client for one connection (token applied, base URL, limits). */
export type ClientFactory<Client> = (connection: Connection, ctx: ClientContext) => Promise<Client>;

export interface ProviderTools<Client = unknown> {
  provider: Provider;
  steps: readonly ToolStep<z.ZodType, z.ZodType, Client>[];
  client: ClientFactory<Client>;
  /**
   * Turns the provider client's own failures (e.g. Octokit's RequestError) into AppErrors;
   * undefined for values it does not recognise (those become `internal`). `nowMs` is the
   * context's clock, which a rate limit's reset time is counted from.
   */
  mapError?: (e: unknown, nowMs: number) => AppError | undefined;
  /** The ids of the webhooks the product registered at this provider, read from the table (StepContext.managedHookIds). */
  managedHookIds?: (store: Store) => Promise<ReadonlySet<string>>;
}

/**
 * A provider's steps with the client factory that serves them, the client's type checked
 * here once and then forgotten: the invoker and the catalog only ever pass a provider's
 * own client to its own steps.
 */
export function defineProvider<Client>(tools: ProviderTools<Client>): ProviderTools {
  return tools;
}

/** What a destructive step answers to `dryRun: true`: the request it would send. */
export const dryRunRequest = {
  dryRun: z.literal(true),
  request: z.object({
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
  }),
};

/** A step declared with its schemas as functions, built on first use by {@link lazySchemas}. */
export type LazyStep<S extends z.ZodType, O extends z.ZodType, Client> = Omit<ToolStep<S, O, Client>, 'input' | 'output'> & {
  input: () => S;
  output: () => O;
};

/**
 * The step with `input` and `output` built on their first read, then kept. Building the 29
 * steps' zod schemas was the largest part of the tool-step function's module load (cold
 * start: see docs/performance.md); a warm container builds each once, when first invoked
 * or listed.
 */
export function lazySchemas<S extends z.ZodType, O extends z.ZodType, Client>(step: LazyStep<S, O, Client>): ToolStep<S, O, Client> {
  const { input, output, ...rest } = step;
  let builtInput: S | undefined;
  let builtOutput: O | undefined;
  return Object.defineProperties(rest, {
    input: { get: () => (builtInput ??= input()), enumerable: true },
    output: { get: () => (builtOutput ??= output()), enumerable: true },
  }) as typeof rest & { input: S; output: O };
}
