import { describe, expect, it } from 'vitest';
import { SimulatedGitHubApp } from '../../local/sandbox/github/simulated-github-app';
import type { RecordedRequest } from '../../local/sandbox/simulated-http';

/**
 * The simulated GitHub App answers an installation token as GitHub does ("Permissions required
 * for GitHub Apps", the REST reference of `apps/list-repos-accessible-to-installation`).
 */
function world(permissions: Record<string, string>, selection: 'all' | 'selected' = 'selected') {
  const app = new SimulatedGitHubApp();
  app.addInstallation({
    id: 7,
    account: { login: 'octo-org', id: 70, type: 'Organization' },
    repositorySelection: selection,
    repositories: ['octo-org/one', 'octo-org/two', 'octo-org/three'],
    permissions,
  });
  const token = 'ghs_installationtokenfortests0000000000';
  app.installationTokens.set(token, { installationId: 7, expiresAt: Date.parse('2999-01-01T00:00:00Z') });
  const request = (method: string, url: string): RecordedRequest => {
    const u = new URL(url, 'http://simulated.invalid');
    return { method, url, path: u.pathname, query: u.searchParams, headers: { authorization: `token ${token}` }, body: '' };
  };
  return { app, send: (method: string, url: string) => app.handle(request(method, url)) };
}

describe('the simulated GitHub App and an installation token', () => {
  it('refuses a route whose permission the installation lacks, or holds only to read, with 403 "Resource not accessible by integration"', () => {
    const { send } = world({ metadata: 'read', issues: 'write', contents: 'read' });
    const dispatch = send('POST', '/repos/octo-org/one/actions/workflows/ci.yml/dispatches');
    expect(dispatch).toMatchObject({
      status: 403,
      headers: { 'x-accepted-github-permissions': 'actions=write' },
      body: { message: 'Resource not accessible by integration' },
    });
    expect(send('PUT', '/repos/octo-org/one/contents/README.md')).toMatchObject({ status: 403 });
    expect(send('POST', '/repos/octo-org/one/pulls')).toMatchObject({ status: 403 });
    // Granted: left to the rest of the simulated code host.
    expect(send('POST', '/repos/octo-org/one/issues')).toBeUndefined();
    expect(send('GET', '/repos/octo-org/one/contents/README.md')).toBeUndefined();
    expect(send('GET', '/repos/octo-org/one')).toBeUndefined();
  });

  it('lists the installation repositories (GET /installation/repositories) in pages, with the selection', () => {
    const { send } = world({ metadata: 'read' });
    const first = send('GET', '/installation/repositories?per_page=2&page=1');
    expect(first?.status ?? 200).toBe(200);
    expect(first?.body).toMatchObject({ total_count: 3, repository_selection: 'selected' });
    const names = (b: unknown) => (b as { repositories: Array<{ full_name: string }> }).repositories.map((r) => r.full_name);
    expect(names(first?.body)).toEqual(['octo-org/one', 'octo-org/two']);
    expect(names(send('GET', '/installation/repositories?per_page=2&page=2')?.body)).toEqual(['octo-org/three']);
    const repo = ((first?.body ?? { repositories: [] }) as { repositories: Array<Record<string, unknown>> }).repositories[0];
    // The repository shape's required members that the product reads and a client expects.
    expect(repo).toMatchObject({
      id: expect.any(Number),
      name: 'one',
      full_name: 'octo-org/one',
      private: false,
      owner: { login: 'octo-org' },
    });
  });
});
