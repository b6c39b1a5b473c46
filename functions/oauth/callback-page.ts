import type { HttpResponse } from '../../shared/http/types';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The callback's answer when no `returnTo` was given: JSON for programs that ask for it,
 * otherwise a small HTML page for the person's browser (no script, nothing external).
 */
export function callbackPage(
  status: number,
  body: Record<string, unknown>,
  accept: string | undefined,
  headers: Record<string, string>,
): HttpResponse {
  if (accept?.includes('application/json') && !accept.includes('text/html')) {
    return { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
  }
  const error = body.error as { code?: string; message?: string } | undefined;
  const title = error ? 'Connection failed' : 'Connected';
  const text = error
    ? `${error.message ?? 'Connecting failed'} (${error.code ?? 'error'}).`
    : `The account is connected (connection ${String(body.connectionId)}). You can close this window.`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${escapeHtml(text)}</p><pre>${escapeHtml(JSON.stringify(body))}</pre></body></html>`;
  return {
    status,
    headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" },
    body: html,
  };
}
