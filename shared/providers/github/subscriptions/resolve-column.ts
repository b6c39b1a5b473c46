import * as z from 'zod';
import type { AppContext } from '../../../ports/app-context';
import { codeHostAccess } from '../code-host-access';
import { AppError, InvalidInputError } from '../../../domain/errors';
import type { Connection, SubscriptionTarget } from '../../../domain/model';
import { isOk, orgPath, repoPath, restCall, upstreamMessage } from '../webhooks/rest-call';

/**
 * new_card_in_column's column filter by NAME: `project_card` payloads carry the column id
 * only, so a name is turned into the id once, when subscribing, from the classic projects
 * REST API (Enterprise Server; github.com removed classic projects on 2025-04-01):
 * `GET /repos/{o}/{r}/projects` or `GET /orgs/{org}/projects`, then
 * `GET /projects/{project_id}/columns` for each. Exactly one column of that name (any case)
 * must exist across the target's projects; none or several is a clear `invalid_input`
 * naming `filters.column` (several: with their ids, to pick one). An id is kept as given.
 */

const projectSchema = z.object({ id: z.number(), name: z.string() });
const columnSchema = z.object({ id: z.number(), name: z.string() });

/** Bounds the lookup: a target with more classic projects than this is asked for the id. */
const maxProjects = 100;

const field = 'filters.column';

async function getList<T>(ctx: AppContext, connection: Connection, path: string, item: z.ZodType<T>): Promise<T[]> {
  const access = await codeHostAccess(ctx, connection);
  const result = await restCall(ctx.fetch, { ...access, method: 'GET', path });
  if (result.status === 404 || result.status === 410) {
    throw new InvalidInputError([
      {
        field,
        message: `cannot look the column up by name: the code host has no classic projects here (${upstreamMessage(result)}); give the column id`,
      },
    ]);
  }
  if (!isOk(result))
    throw new AppError('upstream_error', `Looking up project columns failed: ${upstreamMessage(result)}`, {
      upstreamStatus: result.status,
    });
  const parsed = z.array(item).safeParse(result.body);
  if (!parsed.success) throw new AppError('upstream_error', `The code host answered ${path.split('?')[0]} with an unexpected shape`);
  return parsed.data;
}

/** The column id for `column` (an id, or a name looked up among the target's classic projects). */
export async function resolveColumn(ctx: AppContext, connection: Connection, target: SubscriptionTarget, column: string): Promise<string> {
  const given = column.trim();
  if (/^\d+$/.test(given)) return given;
  if (target.kind === 'account')
    throw new InvalidInputError([
      { field, message: 'a column name needs a repository or organization to look it up in; give the column id' },
    ]);
  const owner = target.kind === 'repository' ? repoPath(target.repository) : orgPath(target.organization);
  const projects = await getList(ctx, connection, `${owner}/projects?state=all&per_page=${maxProjects}`, projectSchema);
  const found: Array<{ project: string; id: number }> = [];
  for (const project of projects) {
    const columns = await getList(ctx, connection, `/projects/${project.id}/columns?per_page=100`, columnSchema);
    for (const c of columns) if (c.name.trim().toLowerCase() === given.toLowerCase()) found.push({ project: project.name, id: c.id });
  }
  if (found.length === 1 && found[0]) return String(found[0].id);
  if (found.length === 0)
    throw new InvalidInputError([
      {
        field,
        message: `no classic project column named "${given}" in ${projects.length} project(s) of the ${target.kind}; give the column id or an existing name`,
      },
    ]);
  const list = found.map((f) => `${f.id} (project "${f.project}")`).join(', ');
  throw new InvalidInputError([{ field, message: `several columns are named "${given}": ${list}; give the column id` }]);
}
