import { describe, expect, it } from 'vitest';
import { nextPagePath } from '../../shared/providers/github/polling/poll-links';

describe('Link header: the next page', () => {
  const base = 'https://api.github.com';
  it('reads rel="next" among others, as the code host sends it', () => {
    const link =
      '<https://api.github.com/repositories/1300192/subscribers?per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1300192/subscribers?per_page=100&page=5>; rel="last"';
    expect(nextPagePath(link, base)).toBe('/repositories/1300192/subscribers?per_page=100&page=2');
  });
  it('keeps an Enterprise Server base path', () => {
    expect(nextPagePath('<https://ghe.example/api/v3/gists?page=2>; rel="next"', 'https://ghe.example/api/v3')).toBe('/gists?page=2');
  });
  it('has none on the last page, and never follows a link to another host or outside the base', () => {
    expect(nextPagePath('<https://api.github.com/gists?page=1>; rel="prev"', base)).toBeUndefined();
    expect(nextPagePath(null, base)).toBeUndefined();
    expect(nextPagePath('<https://evil.example/gists?page=2>; rel="next"', base)).toBeUndefined();
    expect(nextPagePath('<https://ghe.example/other/gists?page=2>; rel="next"', 'https://ghe.example/api/v3')).toBeUndefined();
  });
});
