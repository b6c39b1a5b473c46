import { AppError } from './errors';
import type { AppInstallation, AppReach, Connection } from './model';

/** What the allow-list checks read of a connection. */
export type AllowListed = Pick<Connection, 'repositories'> & {
  repositoryIds?: Connection['repositoryIds'];
  installation?: Pick<AppInstallation, 'repositorySelection'>;
  reach?: AppReach;
  authMethod?: Connection['authMethod'];
};

/**
 * Whether a connection of each auth method acts through an installation, whose reach (not the
 * user's) bounds what an empty allow-list means: a field of the method, so that a new one
 * must say.
 */
export const actsThroughInstallation: Record<Connection['authMethod'], boolean> = { token: false, oauth: false, github_app: true };

/**
 * Whether the connection is held to its allow-list. Only an empty list on a connection that
 * does not act through an installation, or on one acting for the installation's administrator
 * over all its repositories, means "every repository"; an installation's connection acting for
 * another user (or made before `reach` existed) reaches only the repositories listed, none when empty.
 */
export function isLimitedToList(connection: AllowListed): boolean {
  if (connection.repositories.length > 0) return true;
  const app =
    (connection.authMethod !== undefined && actsThroughInstallation[connection.authMethod]) || connection.installation !== undefined;
  if (!app) return false;
  return connection.reach !== 'installation' || connection.installation?.repositorySelection !== 'all';
}

/**
 * True when the connection may act on `owner/name`. With `repositoryId` (the code host's id,
 * as a signed delivery names it), an entry whose id is known matches by id, whatever its name
 * now: a renamed or transferred repository stays allowed, under its new name.
 */
export function isRepositoryAllowed(connection: AllowListed, repository: string, repositoryId?: number): boolean {
  if (!isLimitedToList(connection)) return true;
  const wanted = repository.toLowerCase();
  return connection.repositories.some((r) => {
    const id = connection.repositoryIds?.[r.toLowerCase()];
    return repositoryId !== undefined && id !== undefined ? id === repositoryId : r.toLowerCase() === wanted;
  });
}

/** Throws `forbidden` (before anything is sent) when `repository` is outside the connection's allow-list. */
export function assertRepositoryAllowed(connection: AllowListed & Pick<Connection, 'id'>, repository: string | undefined): void {
  if (repository === undefined || isRepositoryAllowed(connection, repository)) return;
  throw new AppError('forbidden', `Connection ${connection.id} is limited to other repositories; ${repository} is not in its allow-list`, {
    repository,
    allowed: connection.repositories,
  });
}
