import { afterAll, vi } from 'vitest';

// The suite runs its files in long-lived workers (vitest.config.ts, `isolate: false`) so that a
// file does not pay for a new process and a fresh import of the SDKs. Each file still starts
// from a fresh copy of the project's own modules: their module-level state (caches, counters,
// registries) is never one left by the file before. Packages under node_modules are shared, and
// so is the process: its environment and working directory are put back as they were when the
// file ends; a file that mocks a module undoes it (vi.doUnmock in afterAll).
vi.resetModules();

const env = { ...process.env };
const cwd = process.cwd();
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
});
