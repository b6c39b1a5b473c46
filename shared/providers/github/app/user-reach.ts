import * as z from 'zod';
import { AppError } from '../../../domain/errors';
import type { AppReach } from '../../../domain/model';
import { appCall, type AppCallDeps } from './app-http';
import type { InstallationAnswer } from './installations';

const membershipSchema = z.object({
  state: z.enum(['active', 'pending']),
  role: z.enum(['admin', 'member', 'billing_manager']),
});

/**
 * The user's role in `org` (`GET /user/memberships/orgs/{org}` with the user's token), or
 * undefined when GitHub answers that the user is no member, or that the App may not read the
 * membership (403/404: the user token reaches no further than the App's permissions). Only an
 * `active` membership counts; a pending invitation is not yet a role.
 */
export async function userOrgRole(
  deps: AppCallDeps,
  apiBase: string,
  userToken: string,
  org: string,
): Promise<'admin' | 'member' | 'billing_manager' | undefined> {
  let data: unknown;
  try {
    data = await appCall(deps, {
      method: 'GET',
      url: `${apiBase}/user/memberships/orgs/${encodeURIComponent(org)}`,
      bearer: userToken,
      maxBytes: 256 * 1024,
      service: "the user's organization membership",
    });
  } catch (e) {
    if (e instanceof AppError && (e.details?.status === 403 || e.details?.status === 404)) return undefined;
    throw e;
  }
  const parsed = membershipSchema.safeParse(data);
  if (!parsed.success)
    throw new AppError('upstream_error', "The code host's answer to GET /user/memberships/orgs/{org} does not have the documented shape");
  return parsed.data.state === 'active' ? parsed.data.role : undefined;
}

/**
 * Whose reach a connection of `installation` made by the user `userId` acts with: the
 * installation's only when the user administers the account it is installed on (the user's
 * own account, or an organization whose membership says `admin`); the user's own otherwise.
 * Reads the membership only for an organization's installation.
 */
export async function connectionReach(
  deps: AppCallDeps,
  apiBase: string,
  userToken: string,
  installation: InstallationAnswer,
  userId: string | undefined,
): Promise<AppReach> {
  const account = installation.account;
  if (account.type === 'User') return userId !== undefined && account.id === userId ? 'installation' : 'user';
  return (await userOrgRole(deps, apiBase, userToken, account.login)) === 'admin' ? 'installation' : 'user';
}
