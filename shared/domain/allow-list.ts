import { AppError } from './errors';
import type { AppInstallation, Connection } from './model';

/**
 * True when the connection may act on `owner/name` (an empty allow-list allows every
 * repository, except on a GitHub App installation of selected repositories: none are left).
 */
export function isRepositoryAllowed(
  connection: Pick<Connection, 'repositories'> & { installation?: Pick<AppInstallation, 'repositorySelection'> },
  repository: string,
): boolean {
  if (connection.repositories.length === 0) return connection.installation?.repositorySelection !== 'selected';
  const wanted = repository.toLowerCase();
  return connection.repositories.some((r) => r.toLowerCase() === wanted);
}

/** Throws `forbidden` (before anything is sent) when `repository` is outside the connection's allow-list. */
export function assertRepositoryAllowed(connection: Pick<Connection, 'id' | 'repositories'>, repository: string | undefined): void {
  if (repository === undefined || isRepositoryAllowed(connection, repository)) return;
  throw new AppError('forbidden', `Connection ${connection.id} is limited to other repositories; ${repository} is not in its allow-list`, {
    repository,
    allowed: connection.repositories,
  });
}
