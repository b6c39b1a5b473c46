import { describe, expect, it } from 'vitest';
import { prefersHtml } from '../../shared/http/html';
import { connectedPage, failedPage } from '../../shared/oauth/pages';

describe('OAuth pages', () => {
  it('escape the account name (a collection-service account is a free-text name)', () => {
    const html = String(connectedPage({ service: 'Content Snare', account: '<img src=x onerror=alert(1)>', connectionId: 'conn_1' }).body);
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('offer the way back when there is one, else say the window may be closed', () => {
    const back = String(
      connectedPage({
        service: 'GitHub',
        account: 'octocat',
        connectionId: 'c',
        back: { href: 'http://localhost:3000/', label: 'Back to the console' },
      }).body,
    );
    expect(back).toContain('<a class="button" href="http://localhost:3000/">Back to the console</a>');
    expect(String(failedPage({ status: 400, code: 'invalid_input', message: 'x' }).body)).toContain('You can close this window');
  });
});

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html', true],
    ['application/json', false],
    ['application/json, text/html;q=0.5', false],
    ['*/*', false],
    [undefined, false],
    ['text/*', true],
  ])('%s -> %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
