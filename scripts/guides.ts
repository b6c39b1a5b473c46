import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { currentTokenGuide, tokenGuidePath } from '../local/admin/permission-table';
import { currentManifestGrants, manifestGrantsPath } from '../shared/providers/github/app/manifest/manifest-grants';

/**
 * `npm run guides`: writes the permission tables into docs/guides/github-token.md, and the GitHub App
 * manifest's permissions and events, from the steps' and triggers' declarations.
 */
writeFileSync(tokenGuidePath, currentTokenGuide());
process.stdout.write(`wrote ${relative(process.cwd(), tokenGuidePath)}\n`);
writeFileSync(manifestGrantsPath, currentManifestGrants());
process.stdout.write(`wrote ${relative(process.cwd(), manifestGrantsPath)}\n`);
