import { vi } from 'vitest';

// The suite runs its files in long-lived workers (vitest.config.ts, `isolate: false`) so that a
// file does not pay for a new process and a fresh import of the SDKs. Each file still starts
// from a fresh copy of the project's own modules: their module-level state (caches, counters,
// registries) is never one left by the file before. Packages under node_modules are shared, and
// so is the process: a file restores what it changes in it (process.env, the working directory,
// listeners) and undoes its module mocks (vi.doUnmock in afterAll).
vi.resetModules();
