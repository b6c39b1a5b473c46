import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { currentTokenGuide, tokenGuidePath } from '../local/admin/permission-table';

/** `npm run guides`: writes the permission tables into docs/guides/github-token.md from the steps' and triggers' declarations. */
writeFileSync(tokenGuidePath, currentTokenGuide());
process.stdout.write(`wrote ${relative(process.cwd(), tokenGuidePath)}\n`);
