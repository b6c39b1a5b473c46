import * as z from 'zod';
import { AppError } from '../../../../domain/errors';
import type { Connection } from '../../../../domain/model';
import { codeHostAccess } from '../../code-host-access';
import { restCall } from '../../webhooks/rest-call';
import type { AppContext } from '../../../../ports/app-context';

/** Pages of `GET /installation/repositories` read at most (100 each): beyond, the list is not known. */
export const maxInstallationRepositoryPages = 20;

const page = z.object({
  total_count: z.number().int().nonnegative(),
  repositories: z.array(z.object({ full_name: z.string().min(3).max(201) })).max(100),
});

/**
 * Every repository the installation holds, read with the connection's access (the
 * installation's token), 100 a page. Throws `upstream_error` when the code host does not
 * answer as documented, or lists more than the pages read, so that a half-known list is
 * never taken for the whole (the allow-list would silently miss repositories).
 */
export async function installationRepositories(ctx: AppContext, connection: Connection): Promise<string[]> {
  const access = await codeHostAccess(ctx, connection);
  const out: string[] = [];
  for (let n = 1; n <= maxInstallationRepositoryPages; n++) {
    const result = await restCall(ctx.fetch, { ...access, method: 'GET', path: `/installation/repositories?per_page=100&page=${n}` });
    const parsed = result.status === 200 ? page.safeParse(result.body) : undefined;
    if (!parsed?.success)
      throw new AppError('upstream_error', `The code host did not list the installation's repositories (HTTP ${result.status})`, {
        upstreamStatus: result.status,
      });
    out.push(...parsed.data.repositories.map((r) => r.full_name));
    if (out.length >= parsed.data.total_count || parsed.data.repositories.length < 100) return out;
  }
  throw new AppError('upstream_error', `The installation lists more than ${maxInstallationRepositoryPages * 100} repositories`);
}
