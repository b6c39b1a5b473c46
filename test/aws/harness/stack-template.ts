import { existsSync, readFileSync } from 'node:fs';
import { synthStack } from '../../infra/synth-stack';
import type { CfnTemplate } from '../iam/template-policies';

/**
 * The deployment-specific settings the suite synthesizes the stack with: stand-ins that each
 * world replaces, in the functions' environment only, with its fakes' loopback URLs and ids.
 * They reach nothing but environment variables (the template's other parts do not depend on
 * them), so one synthesis serves every test file: a synth takes tens of seconds on 2 busy cores.
 * No stand-in may contain another (each is replaced wherever it occurs).
 */
export const placeholders = {
  githubApiUrl: 'https://github-api.aws-mode.invalid',
  githubOAuthUrl: 'https://github-oauth.aws-mode.invalid',
  contentsnareApiUrl: 'https://contentsnare-api.aws-mode.invalid',
  contentsnareOAuthUrl: 'https://contentsnare-oauth.aws-mode.invalid',
  agentRuntimeUrl: 'https://agent-runtime.aws-mode.invalid/trigger-events',
  publicUrl: 'https://front-door.aws-mode.invalid',
  githubClientId: 'aws-mode-github-client-id',
  contentsnareClientId: 'aws-mode-contentsnare-client-id',
  githubAppId: '909090',
  githubAppSlug: 'awsmodeslug',
  githubAppClientId: 'Iv23li-aws-mode-app-client',
  allowedReturnOrigins: 'https://platform.example.test',
} as const;

export type Placeholder = keyof typeof placeholders;

/** Where the global setup left the synthesized template (one synth per run). */
export const templatePathVariable = 'AWS_MODE_TEMPLATE_PATH';

export function synthesizeTemplate(): { template: CfnTemplate; stackName: string } {
  const synth = synthStack({ stage: 'test', ...placeholders });
  return { template: synth.template.toJSON() as CfnTemplate, stackName: synth.stack.stackName };
}

/** Longest wait for the global setup's synthesis: it takes tens of seconds on 2 busy cores. */
const synthesisWaitMs = 300_000;

/** The run's template (from the global setup, once its synthesis is done), or a synthesis of its own when run without it. */
export async function loadTemplate(): Promise<{ template: CfnTemplate; stackName: string }> {
  const path = process.env[templatePathVariable];
  if (!path) return synthesizeTemplate();
  const end = Date.now() + synthesisWaitMs;
  while (!existsSync(path)) {
    if (existsSync(`${path}.failed`)) throw new Error(`the stack's synthesis failed:\n${readFileSync(`${path}.failed`, 'utf8')}`);
    if (Date.now() > end) throw new Error(`the stack's synthesis did not finish within ${synthesisWaitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return JSON.parse(readFileSync(path, 'utf8')) as { template: CfnTemplate; stackName: string };
}
