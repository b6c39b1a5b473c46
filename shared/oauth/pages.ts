import { cspHash, escapeHtml } from '../http/html';
import type { HttpResponse } from '../http/types';

/**
 * The pages a person's browser lands on when the OAuth flow cannot send it back to the
 * app it came from (no `returnTo`, or a link that cannot be trusted any more): what
 * happened, in words, and the way back. Nothing external, no script; the one inline style
 * is allowed by its hash.
 */

const style =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}' +
  'h1{font-size:1.5rem}.ok{color:#1a7f37}.bad{color:#cf222e}code{background:#f6f8fa;padding:0 .25rem}' +
  'a.button{display:inline-block;padding:.5rem 1rem;border-radius:6px;background:#1f6feb;color:#fff;text-decoration:none}';

const headers = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src ${cspHash(style)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'x-frame-options': 'DENY',
};

/** Where "back" goes: the app's returnTo when known, else the local console, else nowhere. */
export interface WayBack {
  href?: string;
  label: string;
}

function wayBackHtml(back: WayBack | undefined): string {
  if (!back?.href) return '<p>You can close this window.</p>';
  return `<p><a class="button" href="${escapeHtml(back.href)}">${escapeHtml(back.label)}</a></p>`;
}

function page(status: number, title: string, body: string, extraHeaders: Record<string, string>): HttpResponse {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head><body>${body}</body></html>`;
  return { status, headers: { ...extraHeaders, ...headers }, body: html };
}

/** Connected: names the service (its provider's display name) and the account, and offers the way back. */
export function connectedPage(
  input: { service: string; account?: string; connectionId: string; back?: WayBack },
  extraHeaders: Record<string, string> = {},
): HttpResponse {
  const service = input.service;
  const who = input.account
    ? `Your ${escapeHtml(service)} account <strong>${escapeHtml(input.account)}</strong> is connected.`
    : `Your ${escapeHtml(service)} account is connected.`;
  return page(
    200,
    `Connected to ${service}`,
    `<h1 class="ok">Connected to ${escapeHtml(service)}</h1><p>${who}</p><p>Connection <code>${escapeHtml(input.connectionId)}</code>.</p>${wayBackHtml(input.back)}`,
    extraHeaders,
  );
}

/** What a person can do about each failure the callback reports (codes of callback.ts). */
const advice: Record<string, string> = {
  access_denied: 'Access was declined on the service. To connect, start again and approve the access asked for.',
  authorization_failed: 'Start the connection again. If it fails again, the service may be having trouble: try later.',
  invalid_request: 'Start the connection again from the app you came from.',
  not_configured: 'The operator has to configure this service\u2019s OAuth client (see the README) before anyone can connect it.',
  token_exchange_failed:
    'Start the connection again. If it keeps failing, the OAuth client\u2019s settings may be wrong: tell the operator.',
  account_lookup_failed: 'Start the connection again; the service did not say which account was connected.',
  account_mismatch: 'Sign in to the service with the account this connection was made with, then reconnect.',
  account_unverified: 'Connect the account as a new connection instead of reconnecting.',
  token_origin_mismatch: 'Connect the account as a new connection instead of reconnecting.',
  connection_not_found: 'The connection was removed meanwhile: connect the account as a new connection.',
  server_error: 'Start the connection again in a moment.',
  connect_page_used: 'A connect page makes one connection. Ask the app you came from for a new one.',
  invalid_input:
    'Connection links work once, for 10 minutes, in the browser that opened them. Start the connection again from the app you came from.',
  not_found: 'Check the address, or start the connection again from the app you came from.',
};

/** A failed flow or an unusable link: what happened (our own words, never the provider's) and what to do. */
export function failedPage(
  input: { status: number; service?: string; code: string; message: string; back?: WayBack },
  extraHeaders: Record<string, string> = {},
): HttpResponse {
  const service = input.service;
  const expired = input.code === 'invalid_input';
  const title = expired ? 'This connection link cannot be used' : `Connecting ${service ?? 'the account'} failed`;
  const todo = advice[input.code] ?? advice.server_error;
  return page(
    input.status,
    title,
    `<h1 class="bad">${escapeHtml(title)}</h1><p>${escapeHtml(input.message.replace(/\.$/, ''))}.</p><p>${escapeHtml(todo)}</p><p>Error code: <code>${escapeHtml(input.code)}</code></p>${wayBackHtml(input.back)}`,
    extraHeaders,
  );
}
