import { cspHash, escapeHtml } from '../http/html';
import type { HttpResponse } from '../http/types';
import type { SessionRefusal } from '../store/connect-session-repo';
import type { ConnectOffer, OfferDef } from './connect-offers';

/**
 * The connect page an end user's browser opens: one form per service, no script, nothing
 * external; the one inline style is allowed by its hash. Forms post to the page's own URL,
 * and the flows they start go on to the services' sign-in pages, so those origins are the
 * only others `form-action` allows (a browser checks the redirects a form post follows).
 */

const style =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1f2328}' +
  'h1{font-size:1.5rem}ul{list-style:none;padding:0}li{margin:0 0 1.25rem}.how{margin:.25rem 0;color:#59636e}' +
  'button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #1f6feb;background:#1f6feb;color:#fff;cursor:pointer}' +
  'button:disabled{background:#eee;color:#59636e;border-color:#ccc;cursor:default}' +
  'button:focus-visible,input:focus-visible{outline:3px solid #0969da;outline-offset:2px}' +
  'input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}.bad{color:#cf222e}';

function headers(formActions: readonly string[]): Record<string, string> {
  const forms = ["'self'", ...new Set(formActions)].join(' ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${cspHash(style)}; form-action ${forms}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    // The page's URL carries its token: never cached, never sent on as a Referer to another origin.
    'cache-control': 'no-store',
    'referrer-policy': 'same-origin',
  };
}

function page(status: number, title: string, body: string, formActions: readonly string[] = []): HttpResponse {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head><body><main>${body}</main></body></html>`;
  return { status, headers: headers(formActions), body: html };
}

export interface PageOffer {
  id: ConnectOffer;
  def: OfferDef;
  available: boolean;
}

export interface ConnectPageInput {
  /** The page's own URL: where its forms post. */
  action: string;
  csrf: string;
  offers: PageOffer[];
  /** The origins the flows started here go on to. */
  formActions: string[];
  /** What went wrong with the last try (a refused token), shown above the choices. */
  problem?: string;
  status?: number;
}

function hidden(input: ConnectPageInput): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">`;
}

function offerHtml(input: ConnectPageInput, offer: PageOffer): string {
  const how = `how-${offer.id}`;
  const open = `<form method="post" action="${escapeHtml(input.action)}">${hidden(input)}`;
  if (!offer.available) {
    return `<li>${open}<button type="submit" disabled aria-describedby="${how}">${escapeHtml(offer.def.title)}</button><p class="how" id="${how}">Not available: the operator has not set it up.</p></form></li>`;
  }
  if (!offer.def.start) {
    return `<li>${open}<input type="hidden" name="choice" value="${escapeHtml(offer.id)}"><label for="token-${offer.id}">${escapeHtml(offer.def.title)}</label><p class="how" id="${how}">${escapeHtml(offer.def.how)}</p><input id="token-${offer.id}" name="token" type="password" autocomplete="off" spellcheck="false" required maxlength="1000" aria-describedby="${how}"><p><button type="submit">Connect with this token</button></p></form></li>`;
  }
  return `<li>${open}<button type="submit" name="choice" value="${escapeHtml(offer.id)}" aria-describedby="${how}">${escapeHtml(offer.def.title)}</button><p class="how" id="${how}">${escapeHtml(offer.def.how)}</p></form></li>`;
}

/** The choice of services. */
export function connectPage(input: ConnectPageInput): HttpResponse {
  const problem = input.problem ? `<p class="bad" role="alert">${escapeHtml(input.problem)}</p>` : '';
  const body =
    `<h1>Connect an account</h1>${problem}<p>Choose the service to connect. You will sign in there, and come back here.</p>` +
    `<ul>${input.offers.map((o) => offerHtml(input, o)).join('')}</ul>`;
  return page(input.status ?? 200, 'Connect an account', body, input.formActions);
}

const refusals: Record<SessionRefusal, [number, string, string]> = {
  unknown: [404, 'This connect link is not known', 'Check that the whole link was opened, or ask the app you came from for a new one.'],
  expired: [410, 'This connect link has expired', 'Connect links work for 30 minutes. Ask the app you came from for a new one.'],
  used: [409, 'This connect link was already used', 'A connect link makes one connection. Ask the app you came from for a new one.'],
};

/** A link that cannot be used (unknown, expired, spent): what happened and what to do. */
export function connectRefusedPage(why: SessionRefusal): HttpResponse {
  const [status, title, todo] = refusals[why];
  return page(
    status,
    title,
    `<h1 class="bad">${escapeHtml(title)}</h1><p>${escapeHtml(todo)}</p><p>Error code: <code>connect_${why}</code></p>`,
  );
}
