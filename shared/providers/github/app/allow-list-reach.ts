import { AppError } from '../../../domain/errors';
import type { Connection } from '../../../domain/model';
import { isLimitedToList, isRepositoryAllowed } from '../../../domain/allow-list';

/**
 * A GitHub App connection's allow-list is what GitHub lists for its user (or the
 * installation's, for its administrator): it may be narrowed, never widened past it. Other
 * code-host connections take any list.
 */
export function checkGithubAllowList(current: Connection, wanted: readonly string[]): void {
  if (current.authMethod !== 'github_app') return;
  const outside = wanted.filter((r) => !isRepositoryAllowed(current, r));
  const toAll = wanted.length === 0 && isLimitedToList(current) && current.reach === 'installation';
  if (outside.length === 0 && !toAll) return;
  throw new AppError(
    'forbidden',
    `repositories: a GitHub App connection's allow-list can only be narrowed; ${outside.join(', ') || 'every repository'} is outside what its user may reach (reconnect to read it from GitHub again)`,
    { fields: [{ field: 'repositories', message: "outside the connection's reach" }] },
  );
}
