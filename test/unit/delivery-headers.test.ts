import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkDeliveryHeaders } from '../../shared/providers/github/intake/delivery-headers';
import { allExamples } from '../fixtures/webhooks/examples';

/** The `X-GitHub-Event` values of the webhooks section of the code host's OpenAPI description. */
function openApiEventNames(): string[] {
  // Extracted from @octokit/openapi by test/fixtures/extract-github-openapi.ts (the description is not installed).
  const path = fileURLToPath(new URL('../fixtures/github-openapi-webhooks.json', import.meta.url));
  return (JSON.parse(readFileSync(path, 'utf8')) as { eventNames: string[] }).eventNames;
}

const headers = (event: string) => ({
  'x-github-event': event,
  'x-github-delivery': '0b989ba4-242f-11e5-81e1-c7b6966d2516',
  'x-hub-signature-256': 'sha256=00',
});

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

  it.each(['', 'Issues', 'issues;rm', '../x', 'a'.repeat(65), '9lives', 'issues push'])(
    'refuses %j with 400 naming the header',
    (event) => {
      const checked = checkDeliveryHeaders(headers(event));
      expect(checked).toMatchObject({ ok: false, status: 400, code: 'invalid_input' });
      if (!checked.ok) expect(checked.message).toContain('X-GitHub-Event');
    },
  );
});
