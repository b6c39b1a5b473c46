import * as z from 'zod';
import type { Logger } from '../../observability/logger';
import type { AppContext } from '../../ports/app-context';
import { ConnectionRepo } from '../../store/connection-repo';
import type { DeliveryAnswer } from '../intake-source';
import { badPayload } from './installation-event';
import { fieldsOf, installationPayload, listedRepository } from './installation-payload';
import { installationRepositories } from './installation-repositories';
import { updateConnections } from './update-connections';

const maxListed = 5_000;

const body = z.object({
  action: z.enum(['added', 'removed']),
  installation: installationPayload,
  repository_selection: z.enum(['all', 'selected']),
  repositories_added: z.array(listedRepository).max(maxListed),
  repositories_removed: z.array(listedRepository).max(maxListed),
});

/**
 * `installation_repositories` keeps each connection's allow-list the installation's own:
 * `all` empties it (every repository), `selected` adds and removes the repositories named.
 * A repository removed leaves the allow-list at once, so its subscriptions get no more
 * events (fan-out checks the allow-list) and tools refuse it. An installation that goes
 * from all repositories to selected ones names only those removed: its list is read from
 * the code host then (`GET /installation/repositories`).
 */
export async function onInstallationRepositoriesEvent(ctx: AppContext, log: Logger, payload: unknown): Promise<DeliveryAnswer> {
  const parsed = body.safeParse(payload);
  if (!parsed.success) return badPayload('installation_repositories', fieldsOf(parsed.error));
  const p = parsed.data;
  const connections = (await new ConnectionRepo(ctx.store).byInstallation(p.installation.id)).filter((c) => c.status !== 'revoked');
  const added = p.repositories_added.map((r) => r.full_name);
  const removed = new Set(p.repositories_removed.map((r) => r.full_name.toLowerCase()));
  let whole: string[] | undefined;
  const fromAll = connections.find((c) => c.installation?.repositorySelection !== 'selected');
  if (p.repository_selection === 'selected' && fromAll) whole = await installationRepositories(ctx, fromAll);
  const changed = await updateConnections(ctx, connections, (c) => {
    if (c.installation === undefined) return undefined;
    const installation = { ...c.installation, repositorySelection: p.repository_selection };
    if (p.repository_selection === 'all') return { ...c, installation, repositories: [] };
    const base = c.installation.repositorySelection === 'selected' ? c.repositories : (whole ?? []);
    return { ...c, installation, repositories: withChanges(base, added, removed) };
  });
  ctx.metrics.count('app_installation_event', 1, { action: `repositories_${p.action}` });
  log.info('GitHub App installation repositories changed', {
    installationId: p.installation.id,
    selection: p.repository_selection,
    added: added.length,
    removed: removed.size,
    changed,
  });
  return { status: 200, body: { ok: true, installation: p.installation.id, action: p.action, changed } };
}

/** `list` without `removed`, with `added`, names compared case-insensitively, no repeats. */
function withChanges(list: readonly string[], added: readonly string[], removed: ReadonlySet<string>): string[] {
  const out = new Map<string, string>();
  for (const r of [...list, ...added]) if (!removed.has(r.toLowerCase())) out.set(r.toLowerCase(), r);
  return [...out.values()];
}
