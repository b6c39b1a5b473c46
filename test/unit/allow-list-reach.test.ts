import { describe, expect, it } from 'vitest';
import { isLimitedToList, isRepositoryAllowed } from '../../shared/domain/allow-list';

describe('what an empty allow-list means, by how the connection acts', () => {
  it('is every repository for a token or OAuth connection', () => {
    expect(isLimitedToList({ repositories: [], authMethod: 'token' })).toBe(false);
    expect(isLimitedToList({ repositories: [], authMethod: 'oauth' })).toBe(false);
    expect(isRepositoryAllowed({ repositories: [], authMethod: 'oauth' }, 'octo/any')).toBe(true);
  });

  it('is none for an installation connection, even one whose installation record is missing, unless it acts for the administrator over all', () => {
    expect(isLimitedToList({ repositories: [], authMethod: 'github_app' })).toBe(true);
    expect(
      isLimitedToList({ repositories: [], authMethod: 'github_app', reach: 'user', installation: { repositorySelection: 'all' } }),
    ).toBe(true);
    expect(
      isLimitedToList({ repositories: [], authMethod: 'github_app', reach: 'installation', installation: { repositorySelection: 'all' } }),
    ).toBe(false);
    expect(isLimitedToList({ repositories: [], installation: { repositorySelection: 'selected' } })).toBe(true);
  });
});
