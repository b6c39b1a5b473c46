import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { AppInstallation } from '../../../domain/model';
import { appCall, type AppCallDeps } from './app-http';

/**
 * The installation record as `GET /app/installations/{id}` and `GET /user/installations`
 * describe it. The account is a user or organization (`login`), or an enterprise (`slug`).
 */
const installationSchema = z.object({
  id: z.number().int().positive(),
  account: z
    .object({
      login: z.string().min(1).max(100).optional(),
      slug: z.string().min(1).max(100).optional(),
      id: z.number().int().nonnegative(),
      type: z.string().max(40).optional(),
    })
    .nullable(),
  repository_selection: z.enum(['all', 'selected']),
  permissions: z.record(z.string().max(100), z.string().max(20)).default({}),
  events: z.array(z.string().max(100)).max(500).default([]),
  app_id: z.number().int().optional(),
  suspended_at: z.string().nullable().optional(),
});

export type InstallationAnswer = AppInstallation & { appId?: number; suspended: boolean };

/** Most pages read of one listing (100 items each): a bound, not a cut (past it the listing is refused). */
export const maxListingPages = 10;
const pageBytes = 5 * 1024 * 1024;

function toInstallation(raw: z.infer<typeof installationSchema>): InstallationAnswer {
  const login = raw.account?.login ?? raw.account?.slug;
  if (!raw.account || login === undefined) {
    throw new AppError('upstream_error', `Installation ${raw.id} names no account the connection can act for`);
  }
  return {
    id: raw.id,
    account: { login, id: String(raw.account.id), type: raw.account.type === 'User' ? 'User' : 'Organization' },
    repositorySelection: raw.repository_selection,
    permissions: raw.permissions,
    events: raw.events,
    ...(raw.app_id !== undefined ? { appId: raw.app_id } : {}),
    suspended: raw.suspended_at !== undefined && raw.suspended_at !== null,
  };
}

function parse<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new AppError('upstream_error', `The code host's answer to ${what} does not have the documented shape`);
  return parsed.data;
}

/** `GET /app/installations/{id}` with the App's JWT. */
export async function getInstallation(
  deps: AppCallDeps,
  apiBase: string,
  jwt: string,
  installationId: number,
): Promise<InstallationAnswer> {
  const data = await appCall(deps, {
    method: 'GET',
    url: `${apiBase}/app/installations/${installationId}`,
    bearer: jwt,
    maxBytes: 256 * 1024,
    service: 'the installation look-up',
  });
  return toInstallation(parse(installationSchema, data, 'GET /app/installations/{id}'));
}

const userInstallationsSchema = z.object({
  total_count: z.number().int().nonnegative(),
  installations: z.array(installationSchema).max(100),
});

/**
 * `GET /user/installations` with the user's token of the App: the App's installations the user
 * may access (the only proof that an `installation_id` from a browser is the user's).
 */
export async function listUserInstallations(deps: AppCallDeps, apiBase: string, userToken: string): Promise<InstallationAnswer[]> {
  const all: InstallationAnswer[] = [];
  for (let page = 1; page <= maxListingPages; page++) {
    const data = await appCall(deps, {
      method: 'GET',
      url: `${apiBase}/user/installations?per_page=100&page=${page}`,
      bearer: userToken,
      maxBytes: pageBytes,
      service: "the user's installations",
    });
    const answer = parse(userInstallationsSchema, data, 'GET /user/installations');
    all.push(...answer.installations.map(toInstallation));
    if (answer.installations.length < 100 || all.length >= answer.total_count) return all;
  }
  throw new AppError('upstream_error', `The user can see more than ${maxListingPages * 100} installations; the list is not read further`);
}

const repositoriesSchema = z.object({
  total_count: z.number().int().nonnegative(),
  repositories: z
    .array(
      z.object({
        full_name: z
          .string()
          .regex(/^[^/\s]+\/[^/\s]+$/)
          .max(200),
      }),
    )
    .max(100),
});

/**
 * `GET /user/installations/{id}/repositories` with the user's token: the installation's
 * repositories this user can access, the allow-list of a connection that acts for its user
 * (whatever the selection), and of an administrator's connection on selected repositories.
 * More than `maxListingPages` pages is refused, never cut short.
 */
export async function listUserInstallationRepositories(
  deps: AppCallDeps,
  apiBase: string,
  userToken: string,
  installationId: number,
): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; page <= maxListingPages; page++) {
    const data = await appCall(deps, {
      method: 'GET',
      url: `${apiBase}/user/installations/${installationId}/repositories?per_page=100&page=${page}`,
      bearer: userToken,
      maxBytes: pageBytes,
      service: "the installation's repositories",
    });
    const answer = parse(repositoriesSchema, data, 'GET /user/installations/{id}/repositories');
    names.push(...answer.repositories.map((r) => r.full_name));
    if (answer.repositories.length < 100 || names.length >= answer.total_count) return names;
  }
  throw new AppError(
    'upstream_error',
    `Installation ${installationId} has more than ${maxListingPages * 100} repositories for this user; choose fewer repositories for the App`,
  );
}
