import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  // A thread that could not even load (no tsx) says so where the worlds look, instead of leaving them to time out.
  worker.once('error', (e) => writeFileSync(`${path}.failed`, e.stack ?? e.message));
  worker.once('exit', (code) => {
    if (code !== 0 && !existsSync(path) && !existsSync(`${path}.failed`))
      writeFileSync(`${path}.failed`, `the synthesis thread exited with ${code}`);
  });
  process.env[templatePathVariable] = path;
  return async () => {
    worker.removeAllListeners('exit');
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  };
}
