import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkDeliveryHeaders } from '../../shared/intake/delivery-headers';
import { allExamples } from '../fixtures/webhooks/examples';

/** The `X-GitHub-Event` values of the webhooks section of the code host's OpenAPI description. */
function openApiEventNames(): string[] {
  const path = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  const spec = JSON.parse(readFileSync(path, 'utf8')) as { 'x-webhooks': Record<string, { post?: { parameters?: Array<{ name: string; example?: unknown }> } }> };
  const names = Object.values(spec['x-webhooks']).map((w) => w.post?.parameters?.find((p) => p.name.toLowerCase() === 'x-github-event')?.example);
  return [...new Set(names.filter((n): n is string => typeof n === 'string'))];
}

const headers = (event: string) => ({ 'x-github-event': event, 'x-github-delivery': '0b989ba4-242f-11e5-81e1-c7b6966d2516', 'x-hub-signature-256': 'sha256=00' });

describe('X-GitHub-Event header check', () => {
  const documented = [...new Set([...allExamples().map((e) => e.event), ...openApiEventNames()])].sort();

  it('knows the documented event names (projects_v2_item among them)', () => {
    expect(documented).toContain('projects_v2_item');
    expect(documented.length).toBeGreaterThan(60);
  });

  it.each(documented)('accepts %s', (event) => {
    expect(checkDeliveryHeaders(headers(event))).toMatchObject({ ok: true, headers: { event } });
  });

  it.each(['projects_v2', 'projects_v2_status_update', 'sub_issues'])('accepts %s (sent, not every one in the examples)', (event) => {
    expect(checkDeliveryHeaders(headers(event)).ok).toBe(true);
  });

  it.each(['', 'Issues', 'issues;rm', '../x', 'a'.repeat(65), '9lives', 'issues push'])('refuses %j with 400 naming the header', (event) => {
    const checked = checkDeliveryHeaders(headers(event));
    expect(checked).toMatchObject({ ok: false, status: 400, code: 'invalid_input' });
    if (!checked.ok) expect(checked.message).toContain('X-GitHub-Event');
  });
});
