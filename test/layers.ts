/**
 * The suite's layers, read by vitest.config.ts (one project per layer) and by the rule test
 * test/unit/layer-rules.test.ts. A file's folder names its layer:
 *
 * - unit: pure code, no network, no disk writes, no child process, no embedded DynamoDB; seconds.
 * - integration: loopback fakes (code host, collection service, agent runtime), the embedded
 *   DynamoDB, temporary data dirs, the local runtime in-process; no child process.
 * - e2e: child processes (`npm start`, the CLIs, a process killed mid-write).
 * - infra: the stack's template, cdk-nag, a real `cdk synth` and esbuild bundles (slow).
 * - aws: the functions' real handlers in worker threads with the synthesized environment,
 *   their SDK clients against emulators on loopback (dynalite, fauxqs, the suite's Secrets
 *   Manager) behind the IAM-enforcing proxy, loopback fakes of the outside services; no child process.
 */
export const layers = {
  unit: ['test/unit/**/*.test.ts'],
  integration: ['test/integration/**/*.test.ts'],
  e2e: ['test/e2e/**/*.test.ts'],
  infra: ['test/infra/**/*.test.ts'],
  aws: ['test/aws/**/*.test.ts'],
} as const;

export type Layer = keyof typeof layers;
