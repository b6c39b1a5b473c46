import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import { outcomeOf, type Outcome } from '../../../domain/outcome';
import { lazySchemas, type LazyStep, type StepPermissions, type ToolStep } from '../../../tools/tool-step';
import type { GitHubClient } from '../octokit';

/**
 * What the code-host steps share: input pieces named as the code host's REST parameters,
 * paging with a caller-set cap, dry runs that describe the exact request, and the
 * repository's default branch.
 */

export type GitHubStep<S extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> = ToolStep<S, O, GitHubClient>;

/** Declares a step with its input and output types inferred from its schemas, built on first use (lazySchemas). */
export function githubStep<S extends z.ZodType, O extends z.ZodType>(
  step: Omit<LazyStep<S, O, GitHubClient>, 'provider'>,
): GitHubStep<S, O> {
  return lazySchemas<S, O, GitHubClient>({ provider: 'github', ...step });
}

/**
 * A step's grant: the fine-grained token / GitHub App permissions and the classic OAuth
 * scopes (`repo` stands for `public_repo` too on public repositories).
 */
export function needs(fineGrained: Record<string, 'read' | 'write'>, ...oauthScopes: string[]): StepPermissions {
  return { fineGrained, oauthScopes };
}

// The code host's own rules: logins are letters, digits and single hyphens (enterprise
// servers also allow `_`); repository names are letters, digits, `.`, `-`, `_`.
export const owner = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9_])?$/, 'must be an account login (letters, digits, hyphens)')
  .describe('The account owner of the repository (user or organization login), not case sensitive');
export const repo = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'must be a repository name (letters, digits, ".", "-", "_")')
  .refine((v) => v !== '.' && v !== '..', 'must be a repository name, not "." or ".."')
  .describe('The name of the repository without the .git extension, not case sensitive');

export const repoInput = { owner, repo };
export const repositoryOf = (input: { owner: string; repo: string }) => `${input.owner}/${input.repo}`;

export const positiveInt = (what: string) => z.number().int().positive().describe(what);
export const issueNumber = positiveInt('The number that identifies the issue');

/** A branch, tag or commit name; the code host resolves it. */
export const gitRef = (what: string) =>
  z
    .string()
    .min(1)
    .max(255)
    .refine((v) => !/[\s~^:?*[\\]|\.\.|@\{|\/\/|^\/|\/$/.test(v), 'must be a valid git reference name')
    .describe(what);

/** A path inside the repository: no `..` segments, no leading slash needed. */
export const repoPath = z
  .string()
  .max(4096)
  .transform((v) => v.replace(/^\/+/, ''))
  .refine((v) => !v.split('/').some((s) => s === '..' || s === '.'), 'must not contain "." or ".." segments')
  .describe('Path of the file or folder inside the repository, e.g. src/index.ts; empty for the root');

export const dryRun = z.boolean().optional().describe('Describe the request that would be sent instead of sending it');

/** The author or committer a commit may name (the code host's `name` and `email`). */
export const commitPerson = z.strictObject({
  name: z.string().min(1).max(256).describe('Name'),
  email: z.email().describe('E-mail address'),
});

/** The blob SHA of the file a write replaces or a delete removes, read on the same branch when omitted. */
export const blobShaOf = (what: 'replaced' | 'deleted') =>
  z
    .string()
    .regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/i, 'must be a blob SHA')
    .optional()
    .describe(`Blob SHA of the file being ${what}; looked up on the same branch when omitted`);

/** How many items one list step returns at most, whatever the page size. */
export const maxItemsLimit = 1000;
export const pageInput = {
  per_page: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('Results per page the code host is asked for (max 100); the step follows pages itself'),
  max_items: z
    .number()
    .int()
    .min(1)
    .max(maxItemsLimit)
    .default(100)
    .describe(
      `Stop after this many items (default 100, at most ${maxItemsLimit}); the answer says \`truncated: true\` when more were available`,
    ),
};

type ItemsKey = 'items' | 'workflow_runs' | 'check_runs' | 'jobs';

export interface Listed<T> {
  items: T[];
  count: number;
  /** True when the code host had more than `max_items` to give. */
  truncated: boolean;
}

/** Fields kept beside a keyed list (search, workflow runs). */
const pageExtras = ['total_count', 'incomplete_results'] as const;

/** The `rel="next"` URL of a `link` header. */
function nextPage(link: unknown): string | undefined {
  return /<([^>]+)>;\s*rel="next"/.exec(String(link ?? ''))?.[1];
}

/** The `run` of a listing: every input but `max_items` is a parameter of the one request it pages through. */
export function pagesOf<T = unknown>(route: string, itemsKey?: ItemsKey) {
  return (args: { max_items: number }, client: GitHubClient) => {
    const { max_items, ...params } = args;
    return collectPages<T>(client, route, defined(params), max_items, itemsKey);
  };
}

/**
 * Follows the code host's `link` pages of `route` until `maxItems` are collected or the
 * pages run out; `truncated` says whether the code host had more. A keyed list (`items` of
 * search, `workflow_runs`) is read under its key, with its `total_count` kept beside it:
 * paging is done here rather than by the pagination plugin, which takes the first key of
 * such an answer for the list (search answers now carry `search_type` before `items`). A
 * page that is not a list is `upstream_error`; an empty page ends the paging.
 */
export async function collectPages<T = unknown>(
  client: GitHubClient,
  route: string,
  params: Record<string, unknown>,
  maxItems: number,
  itemsKey?: ItemsKey,
): Promise<Listed<T> & { total_count?: number; incomplete_results?: boolean }> {
  const items: T[] = [];
  const extras: Record<string, unknown> = {};
  let truncated = false;
  const perPage = (params.per_page as number | undefined) ?? Math.min(100, maxItems);
  let page = await client.request(route, { ...params, per_page: perPage });
  for (;;) {
    const data = page.data as unknown;
    const list = itemsKey ? (data as Record<string, unknown> | null)?.[itemsKey] : data;
    if (!Array.isArray(list)) {
      throw new AppError('upstream_error', `The code host's answer to ${route} was not a list${itemsKey ? ` under "${itemsKey}"` : ''}`);
    }
    if (itemsKey) {
      for (const name of pageExtras) {
        const value = (data as Record<string, unknown>)[name];
        if (value !== undefined && !(name in extras)) extras[name] = value;
      }
    }
    const room = maxItems - items.length;
    items.push(...(list as T[]).slice(0, room));
    const next = nextPage(page.headers.link);
    if (items.length >= maxItems) {
      truncated = list.length > room || next !== undefined;
      break;
    }
    if (!next || list.length === 0) break;
    page = await client.request({ method: 'GET', url: next });
  }
  return { ...extras, items, count: items.length, truncated };
}

/** The request a step would send, for `dryRun`: method, full URL and body, no headers (no token). */
export function describeRequest(client: GitHubClient, route: string, params: Record<string, unknown>) {
  const { method, url, body } = client.request.endpoint(route, params) as { method: string; url: string; body?: unknown };
  return { dryRun: true as const, request: { method, url, ...(body === undefined ? {} : { body }) } };
}

/** The repository's default branch (one GET). */
export async function defaultBranch(client: GitHubClient, args: { owner: string; repo: string }): Promise<string> {
  const { data } = await client.request('GET /repos/{owner}/{repo}', { owner: args.owner, repo: args.repo });
  return data.default_branch;
}

/** A finished run's `outcome` in the spec's words beside the code host's `conclusion`. */
export function withOutcome<T extends { status?: string | null; conclusion?: string | null }>(run: T): T & { outcome: Outcome | null } {
  return { ...run, outcome: run.status === 'completed' ? outcomeOf(run.conclusion) : null };
}

/** Drops undefined values so that the request body carries only what the caller set. */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
