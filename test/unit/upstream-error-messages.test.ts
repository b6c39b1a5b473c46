import { describe, expect, it } from 'vitest';
import { githubHttpError, mapGitHubError } from '../../shared/providers/github/github-errors';
import { networkCause } from '../../shared/http/network-cause';

describe("upstream errors carry the service's own words", () => {
  it("puts a 422's errors[] reasons in the message", () => {
    const e = githubHttpError(
      422,
      {},
      {
        message: 'Validation Failed',
        errors: [
          { resource: 'Issue', code: 'missing_field', field: 'title' },
          { resource: 'Hook', code: 'custom', message: 'Hook already exists on this repository' },
        ],
      },
      0,
    );
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('Validation Failed: Issue.title missing_field; Hook already exists on this repository');
  });

  it('says a 404 may be a resource the connection cannot see', () => {
    const e = githubHttpError(404, {}, { message: 'Not Found' }, 0);
    expect(e.code).toBe('not_found');
    expect(e.message).toContain('not found or not visible to this connection');
  });

  it('names the network cause of a fetch failure (ECONNREFUSED, ENOTFOUND), not "fetch failed"', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 9 }),
    });
    expect(networkCause(refused)).toBe('ECONNREFUSED 127.0.0.1:9');
    const dns = new TypeError('fetch failed', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND nope.example'), { code: 'ENOTFOUND', hostname: 'nope.example' }),
    });
    expect(networkCause(dns)).toBe('ENOTFOUND nope.example');
    expect(networkCause(new TypeError('fetch failed'))).toBeUndefined();
    // Octokit's request error for a network failure: status 500, no response, the fetch error as cause.
    const octokit = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { status: 500, cause: refused });
    expect(mapGitHubError(octokit, 0)?.message).toBe('Could not reach the code host (ECONNREFUSED 127.0.0.1:9)');
  });
});
