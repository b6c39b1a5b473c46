import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { templatePathVariable } from './stack-template';

/**
 * vitest global setup of the `aws` project: synthesizes the stack once for every file of the
 * run, in a thread of its own, so that the run's first files start at once instead of after the
 * synthesis (the aws files come later in the run: test/layer-sequencer.ts). Each world waits for
 * the template (loadTemplate).
 */
export default function setup(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'aws-mode-'));
  const path = join(dir, 'template.json');
  const worker = new Worker(new URL('./synth-worker.mjs', import.meta.url), {
    workerData: { path, moduleUrl: new URL('./stack-template.ts', import.meta.url).href },
  });
  process.env[templatePathVariable] = path;
  return async () => {
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  };
}
