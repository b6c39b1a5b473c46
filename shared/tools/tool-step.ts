import type { z } from 'zod';
import type { Connection, Provider } from '../domain/model';
import type { Logger } from '../observability/logger';
import type { AppContext } from '../ports/app-context';
import type { AppError } from '../domain/errors';

/** What a step's `run` receives besides its validated input. */
export interface StepContext {
  connection: Connection;
  app: AppContext;
  logger: Logger;
}

/**
 * One tool step: its id (docs/api.md), its zod input schema (the catalog's JSON Schema is
 * generated from it), the provider call, and a description of its output.
 * `Client` is the provider's API client, built per call by the provider's client factory.
 */
export interface ToolStep<S extends z.ZodType = z.ZodType, Client = unknown> {
  id: string;
  provider: Provider;
  title: string;
  description: string;
  outputDescription: string;
  input: S;
  /** Steps that delete or overwrite accept `dryRun` and then describe the request instead. */
  destructive?: boolean;
  /** The `owner/name` repository the input addresses, for the connection's allow-list. */
  repositoryOf?: (input: z.output<S>) => string | undefined;
  run(input: z.output<S>, client: Client, ctx: StepContext): Promise<unknown>;
}

/** Builds the provider's client for one connection (token applied, base URL, limits). */
export type ClientFactory<Client> = (connection: Connection, ctx: StepContext) => Promise<Client>;

export interface ProviderTools<Client = unknown> {
  provider: Provider;
  steps: ToolStep<z.ZodType, Client>[];
  client: ClientFactory<Client>;
  /**
   * Turns the provider client's own failures (e.g. Octokit's RequestError) into AppErrors;
   * undefined for values it does not recognise (those become `internal`). `nowMs` is the
   * context's clock, which a rate limit's reset time is counted from.
   */
  mapError?: (e: unknown, nowMs: number) => AppError | undefined;
}

/** A step declared with its input schema as a function, built on first use by {@link lazyInput}. */
export type LazyInputStep<S extends z.ZodType, Client> = Omit<ToolStep<S, Client>, 'input'> & { input: () => S };

/**
 * The step with `input` built on its first read, then kept. Building the 29 steps' zod
 * schemas was the largest part of the tool-step function's module load (cold start: see
 * docs/performance.md); a warm container builds each once, when first invoked or listed.
 */
export function lazyInput<S extends z.ZodType, Client>(step: LazyInputStep<S, Client>): ToolStep<S, Client> {
  const build = step.input;
  let built: S | undefined;
  return Object.defineProperty({ ...step }, 'input', { get: () => (built ??= build()), enumerable: true }) as unknown as ToolStep<
    S,
    Client
  >;
}
