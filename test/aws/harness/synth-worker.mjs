// The stack's synthesis for the aws project's global setup (global-synth.ts), in a thread of
// its own: the run's other files go on while it works. The template appears at its path in one
// rename, so a reader never sees half of it; a failure leaves its stack at `<path>.failed`.
// Plain JavaScript: the thread loads the stack's TypeScript through tsx.
import { renameSync, writeFileSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

const { path, moduleUrl } = workerData;
try {
  register();
  const { synthesizeTemplate } = await import(moduleUrl);
  writeFileSync(`${path}.partial`, JSON.stringify(synthesizeTemplate()));
  renameSync(`${path}.partial`, path);
} catch (e) {
  writeFileSync(`${path}.failed`, e instanceof Error ? (e.stack ?? e.message) : String(e));
}
