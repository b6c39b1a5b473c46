import { createHash } from 'node:crypto';

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The q-value an Accept header gives `type` (exact type, then `major/*`, then `*\/*`; 0 when absent). */
function quality(accept: string, type: string): number {
  const [major] = type.split('/');
  let best: { specificity: number; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const specificity = range === type ? 3 : range === `${major}/*` ? 2 : range === '*/*' ? 1 : 0;
    if (specificity === 0 || (best && best.specificity >= specificity)) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    best = { specificity, q: Number.isFinite(q) ? q : 0 };
  }
  return best?.q ?? 0;
}

/**
 * Whether the client asked for HTML over JSON: a browser's navigation sends
 * `text/html,...,*\/*;q=0.8`; programs send `application/json`, `*\/*` or nothing, and get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = quality(accept, 'text/html');
  return html > 0 && html > quality(accept, 'application/json');
}

/** `'sha256-...'` of an inline `<style>` or `<script>` body, for a Content-Security-Policy. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}
