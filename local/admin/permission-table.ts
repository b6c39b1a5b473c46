import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SubscriptionTarget } from '../../shared/domain/model';
import { triggerCatalog } from '../../shared/wiring/providers';
import type { Grant } from '../../shared/domain/trigger-permissions';
import { githubTriggerIds } from '../../shared/domain/triggers';
import { providerTools } from '../../shared/wiring/provider-tools';

/**
 * Where github.com's token settings list each permission an API name stands for: the
 * section (repository, organization or account permissions) and the label shown there.
 */
export const permissionLabels: Record<string, { section: 'Repository' | 'Organization' | 'Account'; label: string }> = {
  actions: { section: 'Repository', label: 'Actions' },
  administration: { section: 'Repository', label: 'Administration' },
  checks: { section: 'Repository', label: 'Checks' },
  statuses: { section: 'Repository', label: 'Commit statuses' },
  contents: { section: 'Repository', label: 'Contents' },
  issues: { section: 'Repository', label: 'Issues' },
  metadata: { section: 'Repository', label: 'Metadata' },
  pull_requests: { section: 'Repository', label: 'Pull requests' },
  repository_hooks: { section: 'Repository', label: 'Webhooks' },
  repository_projects: { section: 'Repository', label: 'Projects' },
  organization_hooks: { section: 'Organization', label: 'Webhooks' },
  organization_projects: { section: 'Organization', label: 'Projects' },
  gists: { section: 'Account', label: 'Gists' },
  starring: { section: 'Account', label: 'Starring' },
};

const levels = { read: 'Read-only', write: 'Read and write' } as const;

/** `Repository: Webhooks (Read and write)`, as a person finds it on github.com. */
export function permissionText(name: string, level: 'read' | 'write'): string {
  const where = permissionLabels[name];
  return where ? `${where.section}: ${where.label} (${levels[level]})` : `${name} (${levels[level]})`;
}

function grantCell(grant: Grant): [string, string] {
  const fine = Object.entries(grant.fineGrained).map(([name, level]) => permissionText(name, level));
  return [
    fine.length > 0 ? fine.join('; ') : 'none beyond the token',
    grant.oauthScopes.length > 0 ? grant.oauthScopes.map((s) => `\`${s}\``).join(', ') : 'none',
  ];
}

const targets: Array<[string, SubscriptionTarget]> = [
  ['a repository', { kind: 'repository', repository: 'owner/name' }],
  ['an organization', { kind: 'organization', organization: 'org' }],
  ['the account', { kind: 'account' }],
];

/** Markdown tables of what each tool step and each trigger needs, from their own declarations. */
export function permissionTables(): string {
  const lines = [
    '### Tool steps',
    '',
    '| step | fine-grained token | classic scopes | note |',
    '|---|---|---|---|',
    ...providerTools.github.steps.map((step) => {
      const [fine, scopes] = grantCell({ fineGrained: step.permissions.fineGrained ?? {}, oauthScopes: step.permissions.oauthScopes });
      return `| \`${step.id}\` | ${fine} | ${scopes} | ${step.permissions.note ?? ''} |`;
    }),
    '',
    '### Triggers',
    '',
    'One row per target the trigger takes (what the subscription names).',
    '',
    '| trigger | target | fine-grained token | classic scopes |',
    '|---|---|---|---|',
    ...githubTriggerIds.flatMap((id) =>
      targets.flatMap(([label, target]) => {
        const grant = triggerCatalog[id].permissions(target);
        if (!grant) return [];
        const [fine, scopes] = grantCell(grant);
        return [`| \`${id}\` | ${label} | ${fine} | ${scopes} |`];
      }),
    ),
  ];
  return `${lines.join('\n')}\n`;
}

const start = '<!-- permission-tables:start (npm run guides writes this part) -->';
const end = '<!-- permission-tables:end -->';

/** The guide that holds the tables. */
export const tokenGuidePath = join(import.meta.dirname, '..', '..', 'docs', 'guides', 'github-token.md');

/** The guide's text with the part between the markers replaced by today's tables. */
export function withCurrentTables(guide: string): string {
  const from = guide.indexOf(start);
  const to = guide.indexOf(end);
  if (from < 0 || to < from) throw new Error(`the guide lacks the markers ${start} ... ${end}`);
  return `${guide.slice(0, from + start.length)}\n\n${permissionTables()}\n${guide.slice(to)}`;
}

/** The guide as it should be on disk. */
export function currentTokenGuide(): string {
  return withCurrentTables(readFileSync(tokenGuidePath, 'utf8'));
}
