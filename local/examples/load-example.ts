import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import type { ExampleDoc } from '../admin/send-example';
import type { TriggerId } from '../../shared/domain/triggers';

const here = dirname(fileURLToPath(import.meta.url));

const docSchema = z.union([
  z.object({ event: z.string().min(1), payload: z.record(z.string(), z.unknown()) }),
  z.object({ event: z.null(), item: z.record(z.string(), z.unknown()) }),
]);

/** The documented example of a trigger (local/examples/<name>.json; see generate.ts). */
export function loadExample(trigger: TriggerId): ExampleDoc {
  const file = join(here, `${trigger.replace(/^github\./, '')}.json`);
  return docSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) as ExampleDoc;
}
