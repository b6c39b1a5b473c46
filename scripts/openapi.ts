import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { openApiDocumentPath, openApiDocumentText } from '../local/openapi-document';

/** `npm run openapi`: writes docs/openapi.json from the routes' specs (test/unit/openapi-document.test.ts checks it is current). */
writeFileSync(openApiDocumentPath, openApiDocumentText());
process.stdout.write(`wrote ${relative(process.cwd(), openApiDocumentPath)}\n`);
