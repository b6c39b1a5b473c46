import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { IntegrationsStack } from './integrations-stack';
import { readSettings } from './settings';

/**
 * The CDK app: one stack per stage, `AgentIntegrations-<stage>`. Environment-agnostic (no
 * account or region baked in), so `npx cdk synth` works without AWS credentials and
 * `cdk deploy` targets the CLI's account and region. cdk-nag's AwsSolutions pack runs on
 * every synth; an unsuppressed finding fails it.
 */
const app = new App();
const settings = readSettings((key) => app.node.tryGetContext(key));
new IntegrationsStack(app, `AgentIntegrations-${settings.stage}`, {
  settings,
  description: `Agent integrations (GitHub, Content Snare), stage ${settings.stage}`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
