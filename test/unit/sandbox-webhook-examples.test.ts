import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { webhookExamplesExtract, webhookExamplesPath } from '../fixtures/extract-github-webhook-examples';

describe("the sandbox's webhook shapes", () => {
  it('are the installed @octokit/webhooks-examples (rerun test/fixtures/extract-github-webhook-examples.ts after an upgrade)', () => {
    const committed = JSON.parse(readFileSync(webhookExamplesPath, 'utf8'));
    expect(committed).toEqual(webhookExamplesExtract());
    expect(Object.keys(committed.examples)).toEqual(
      expect.arrayContaining(['issues.opened', 'issue_comment.created', 'pull_request.opened', 'pull_request_review.submitted', 'push']),
    );
  });
});
