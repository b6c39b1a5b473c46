import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { IntegrationsStack } from '../../infra/integrations-stack';
import { readSettings } from '../../infra/settings';

export interface Synthesized {
  app: App;
  stack: IntegrationsStack;
  template: Template;
}

/**
 * Builds the stack as `infra/app.ts` does, from context only (the test's environment is
 * ignored). `bundle: false` uses CDK's own switch (`aws:cdk:bundling-stacks`) to skip
 * esbuild, so template tests do not depend on every handler compiling.
 */
export function synthStack(context: Record<string, unknown> = {}, opts: { bundle?: boolean; outdir?: string } = {}): Synthesized {
  const app = new App({
    outdir: opts.outdir,
    context: opts.bundle ? {} : { 'aws:cdk:bundling-stacks': [] },
  });
  const settings = readSettings((k) => context[k], {});
  const stack = new IntegrationsStack(app, `AgentIntegrations-${settings.stage}`, { settings });
  return { app, stack, template: Template.fromStack(stack) };
}
