import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { AssetHashType, DockerImage, type Duration, type RemovalPolicy, Stack, type ILocalBundling } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge } from './nag';

/** The function folders under `functions/`; each holds a `handler.ts` exporting `handler`. */
export type FunctionName = 'webhook-intake' | 'dispatch' | 'poller' | 'redelivery-sweep' | 'tool-step' | 'oauth' | 'platform-api';

export interface IntegrationFunctionProps {
  name: FunctionName;
  stage: string;
  description: string;
  timeout: Duration;
  memorySize?: number;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  /** Async invoke retries (schedules: 0, the next tick does the work again). */
  retryAttempts?: number;
  environment?: Record<string, string | undefined>;
}

/** Repository root: `functions/`, `package-lock.json` and `node_modules/` live there. */
export const projectRoot = path.resolve(import.meta.dirname, '..', '..');

/**
 * One Lambda function with the house defaults: nodejs24.x on arm64, ESM (`index.mjs` and the
 * chunks it loads on first use) built by the local esbuild (never Docker) with the settings of
 * infra/bundling/esbuild-options.ts (AWS SDK bundled and so pinned, zod's English locale
 * only) and source maps, X-Ray tracing, its own log group with a retention, and its own role
 * holding no AWS managed policy (only what is granted here).
 * Grants go through the `use*` helpers of the resources, which set the environment
 * variable and the IAM statement together.
 */
export class IntegrationFunction extends Construct {
  readonly fn: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: IntegrationFunctionProps) {
    super(scope, id);
    const functionName = `agent-integrations-${props.stage}-${props.name}`;
    // Named by CloudFormation: a retained log group of a fixed name blocks the next create.
    // The function writes to it through its logging config, not by the /aws/lambda/ name.
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // Our own role instead of the default one, which carries the AWS managed
    // AWSLambdaBasicExecutionRole (cdk-nag IAM4): this role may write to its log group only.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${functionName}: least privilege, granted per resource`,
    });
    this.logGroup.grantWrite(this.role);

    const env: Record<string, string> = {
      STAGE: props.stage,
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: props.name,
      POWERTOOLS_METRICS_NAMESPACE: 'AgentIntegrations',
    };
    for (const [k, v] of Object.entries(props.environment ?? {})) if (v !== undefined) env[k] = v;

    this.fn = new lambda.Function(this, 'Function', {
      functionName,
      description: props.description,
      // Not NodejsFunction: it runs the esbuild CLI, which takes no plugins (zodEnglishOnly).
      code: lambda.Code.fromAsset(projectRoot, {
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          // Never pulled: local bundling either succeeds or fails the synth.
          image: DockerImage.fromRegistry('local-esbuild-bundling-only'),
          local: new LocalEsbuild(path.join(projectRoot, 'functions', props.name, 'handler.ts')),
        },
      }),
      handler: 'index.handler',
      // nodejs22.x is deprecated on 2027-04-30; the code keeps to Node 20 APIs (the local runtime).
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      retryAttempts: props.retryAttempts,
      environment: env,
    });

    // X-Ray takes no resource-level permissions: its two write actions need "*".
    acknowledge(
      this.role,
      'AwsSolutions-IAM5[Resource::*]',
      'Only X-Ray PutTraceSegments/PutTelemetryRecords use "*": X-Ray supports no resource-level permissions (test/infra pins this).',
    );
  }

  /** Sets one environment variable (for values that come with no IAM grant). */
  setEnv(name: string, value: string): this {
    this.fn.addEnvironment(name, value);
    return this;
  }

  /** Adds one IAM statement to this function's role. */
  allow(actions: string[], resources: string[], conditions?: Record<string, Record<string, unknown>>): this {
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources, ...(conditions ? { conditions } : {}) }));
    return this;
  }

  get account(): string {
    return Stack.of(this).account;
  }
}

/**
 * Builds `index.mjs`, its chunks and their maps into the asset directory with the project's
 * esbuild in a child process (infra/bundling/bundle-cli.ts): CDK bundles synchronously,
 * esbuild plugins need its async API. A failure throws, so the synth stops instead of falling back to Docker.
 */
class LocalEsbuild implements ILocalBundling {
  constructor(private readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    const cli = path.join(projectRoot, 'infra', 'bundling', 'bundle-cli.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', cli, this.entry, outputDir], {
      cwd: projectRoot,
      // stdout of a CDK app is the CLI's; esbuild's messages go to stderr.
      stdio: ['ignore', process.stderr, 'inherit'],
    });
    if (run.status !== 0)
      throw new Error(
        `bundling ${path.relative(projectRoot, this.entry)} failed: ${run.error?.message ?? `exit ${run.status ?? run.signal}`}`,
      );
    return true;
  }
}
