/**
 * The code host pages lists with a `Link` header (`<url>; rel="next"`). The next page's path
 * and query, relative to the REST base the first page was read from; undefined on the last
 * page or when the link leaves that base (never followed with the token elsewhere).
 */
export function nextPagePath(link: string | null, baseUrl: string): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (!m?.[1]) continue;
    let url: URL;
    let base: URL;
    try {
      url = new URL(m[1]);
      base = new URL(baseUrl);
    } catch {
      return undefined;
    }
    const basePath = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`)) return undefined;
    return `${url.pathname.slice(basePath.length)}${url.search}`;
  }
  return undefined;
}
