import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { currentTokenGuide, permissionTables, tokenGuidePath } from '../../local/admin/permission-table';
import { triggerCatalog } from '../../shared/wiring/providers';
import { githubTriggerIds } from '../../shared/domain/triggers';
import { githubTools } from '../../shared/providers/github/tools';

/**
 * docs/guides/github-token.md's permission tables come from what the tool steps and the
 * triggers declare, so the guide cannot drift from the code: regenerate with `npm run guides`.
 */
describe('the token guide: permissions each step and trigger needs', () => {
  it('holds the tables the declarations generate today (npm run guides)', () => {
    expect(readFileSync(tokenGuidePath, 'utf8')).toBe(currentTokenGuide());
  });

  it('has a row for every code-host step, and one per target for every trigger', () => {
    const tables = permissionTables();
    for (const step of githubTools.steps) expect(tables).toContain(`| \`${step.id}\` |`);
    for (const id of githubTriggerIds) expect(tables).toContain(`| \`${id}\` |`);
  });

  it('names the hook permission of the target a webhook trigger watches, and the reads a trigger makes', () => {
    const issue = triggerCatalog['github.new_issue'];
    expect(issue.permissions({ kind: 'repository', repository: 'o/r' })).toEqual({
      fineGrained: { repository_hooks: 'write' },
      oauthScopes: ['admin:repo_hook'],
    });
    expect(issue.permissions({ kind: 'organization', organization: 'o' })?.oauthScopes).toEqual(['admin:org_hook']);
    expect(issue.permissions({ kind: 'account' })).toBeUndefined();
    expect(triggerCatalog['github.new_commit'].permissions({ kind: 'repository', repository: 'o/r' })?.fineGrained).toEqual({
      repository_hooks: 'write',
      contents: 'read',
    });
    expect(triggerCatalog['github.new_watcher'].permissions({ kind: 'repository', repository: 'o/r' })?.fineGrained).toEqual({
      metadata: 'read',
    });
  });
});
