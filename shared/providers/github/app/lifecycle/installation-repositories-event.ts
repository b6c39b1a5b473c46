import * as z from 'zod';
import type { Connection } from '../../../../domain/model';
import type { Logger } from '../../../../observability/logger';
import type { AppContext } from '../../../../ports/app-context';
import { ConnectionRepo } from '../../../../store/connection-repo';
import type { LifecycleAnswer } from './lifecycle-answer';
import { badPayload } from './installation-event';
import { fieldsOf, installationPayload, listedRepository } from './installation-payload';
import { installationRepositories } from './installation-repositories';
import { userVisibleRepositories } from './user-repositories';
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
 * `installation_repositories` keeps each connection's allow-list within the installation and
 * within its own user's reach. A repository removed leaves every allow-list at once, so its
 * subscriptions get no more events (fan-out checks the allow-list) and tools refuse it. A
 * repository added joins a connection's allow-list only when that connection's user can
 * access it, read with the user's own token (`GET /user/installations/{id}/repositories`);
 * when that cannot be read, the list does not grow. An administrator's connection
 * (`reach: 'installation'`) on all repositories keeps an empty list (every repository); when
 * its installation goes from all repositories to selected ones (the event names only those
 * removed), its list is read from the code host (`GET /installation/repositories`).
 */
export async function onInstallationRepositoriesEvent(ctx: AppContext, log: Logger, payload: unknown): Promise<LifecycleAnswer> {
  const parsed = body.safeParse(payload);
  if (!parsed.success) return badPayload('installation_repositories', fieldsOf(parsed.error));
  const p = parsed.data;
  const connections = (await new ConnectionRepo(ctx.store).byInstallation(p.installation.id)).filter((c) => c.status !== 'revoked');
  const added = p.repositories_added.map((r) => r.full_name);
  const removed = new Set(p.repositories_removed.map((r) => r.full_name.toLowerCase()));
  const everyRepository = (c: Connection) => c.reach === 'installation' && p.repository_selection === 'all';
  let whole: string[] | undefined;
  const fromAll = connections.find((c) => c.reach === 'installation' && c.installation?.repositorySelection !== 'selected');
  if (p.repository_selection === 'selected' && fromAll) whole = await installationRepositories(ctx, fromAll);
  const visible =
    added.length > 0
      ? await userVisibleRepositories(
          ctx,
          log,
          connections.filter((c) => !everyRepository(c)),
        )
      : new Map();
  const changed = await updateConnections(ctx, connections, (c) => {
    if (c.installation === undefined) return undefined;
    const installation = { ...c.installation, repositorySelection: p.repository_selection };
    if (everyRepository(c)) return { ...c, installation, repositories: [] };
    const fromEvery = c.reach === 'installation' && c.installation.repositorySelection !== 'selected';
    const base = fromEvery ? (whole ?? []) : c.repositories;
    const reachable = visible.get(c.id);
    const granted = added.filter((r) => reachable?.has(r.toLowerCase()) === true);
    return { ...c, installation, repositories: withChanges(base, granted, removed) };
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
