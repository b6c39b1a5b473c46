import { cspHash, escapeHtml, prefersHtml } from '../../../../http/html';
import type { HttpResponse } from '../../../../http/types';
import type { ManifestOutcome, ManifestPost } from './manifest-flow';

/** The pages carry or follow a URL with a state or a code: never cached, never sent on as a Referer. */
const callbackHeaders = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/**
 * The manifest flow's two pages: the one that posts the manifest to GitHub from the browser
 * (GitHub takes it only as a form POST), and the one GitHub's redirect ends on.
 */

const style =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}' +
  'h1{font-size:1.5rem}.ok{color:#1a7f37}code{background:#f6f8fa;padding:0 .25rem}' +
  'button{padding:.5rem 1rem;border-radius:6px;border:0;background:#1f6feb;color:#fff;font:inherit}';

/** Submits the form at once; the button stays for a browser without script. */
const autoSubmit = "document.getElementById('manifest').submit();";

function html(title: string, body: string, extra = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${style}</style></head><body>${body}${extra}</body></html>`;
}

/** The form GitHub's manifest flow asks for: `manifest` (the JSON) posted to the "new App" page with the state. */
export function manifestPostPage(post: ManifestPost): HttpResponse {
  const target = new URL(post.action).origin;
  const body =
    `<h1>Making the GitHub App</h1><p>Your browser goes on to GitHub, which shows the App's name, permissions and events before it makes it.</p>` +
    `<form id="manifest" method="post" action="${escapeHtml(post.action)}">` +
    `<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(post.manifest))}">` +
    '<button type="submit">Continue to GitHub</button></form>';
  return {
    status: 200,
    headers: {
      ...callbackHeaders,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src ${cspHash(style)}; script-src ${cspHash(autoSubmit)}; base-uri 'none'; form-action ${target}; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
    },
    body: html('Making the GitHub App', body, `<script>${autoSubmit}</script>`),
  };
}

function settingsList(settings: Record<string, string>): string {
  return `<ul>${Object.entries(settings)
    .map(([k, v]) => `<li><code>${escapeHtml(k)}</code> = <code>${escapeHtml(v)}</code></li>`)
    .join('')}</ul>`;
}

/** The App made: a page for a browser, JSON for any other client; never a secret. */
export function manifestDoneAnswer(outcome: ManifestOutcome, accept: string | undefined): HttpResponse {
  if (!prefersHtml(accept))
    return { status: 200, headers: { ...callbackHeaders, 'content-type': 'application/json' }, body: JSON.stringify(outcome) };
  const name = `<strong>${escapeHtml(outcome.slug)}</strong> (id <code>${escapeHtml(outcome.appId)}</code>${outcome.owner ? `, owned by ${escapeHtml(outcome.owner)}` : ''})`;
  const next = outcome.kept.inUse
    ? '<p>It is in use now: nothing more to set, and no restart. Connect an account through it next.</p>'
    : `<p>${escapeHtml(outcome.kept.nextStep)}</p>${settingsList(outcome.kept.settings)}`;
  const link = outcome.htmlUrl ? `<p><a href="${escapeHtml(outcome.htmlUrl)}">The App on GitHub</a></p>` : '';
  return {
    status: 200,
    headers: {
      ...callbackHeaders,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; style-src ${cspHash(style)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'x-frame-options': 'DENY',
    },
    body: html('GitHub App made', `<h1 class="ok">GitHub App made</h1><p>GitHub made the App ${name}.</p>${next}${link}`),
  };
}
