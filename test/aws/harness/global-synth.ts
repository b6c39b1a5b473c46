import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesizeTemplate, templatePathVariable } from './stack-template';

/** vitest global setup of the `aws` project: synthesizes the stack once for every file of the run. */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'aws-mode-'));
  const path = join(dir, 'template.json');
  writeFileSync(path, JSON.stringify(synthesizeTemplate()));
  process.env[templatePathVariable] = path;
  return () => rmSync(dir, { recursive: true, force: true });
}
