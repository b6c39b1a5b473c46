import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge } from './nag';

/** The function folders under `functions/`; each holds a `handler.ts` exporting `handler`. */
export type FunctionName =
  | 'webhook-intake'
  | 'dispatch'
  | 'poller'
  | 'redelivery-sweep'
  | 'tool-step'
  | 'oauth'
  | 'platform-api';

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
 * One Lambda function with the house defaults: nodejs22.x on arm64, ESM bundle built by
 * the local esbuild (never Docker) with source maps, X-Ray tracing, its own log group with
 * a retention, and its own role holding no AWS managed policy (only what is granted here).
 * Grants go through the `use*` helpers of the resources, which set the environment
 * variable and the IAM statement together.
 */
export class IntegrationFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: IntegrationFunctionProps) {
    super(scope, id);
    const functionName = `agent-integrations-${props.stage}-${props.name}`;
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: `/aws/lambda/${functionName}`,
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

    this.fn = new NodejsFunction(this, 'Function', {
      functionName,
      description: props.description,
      entry: path.join(projectRoot, 'functions', props.name, 'handler.ts'),
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      retryAttempts: props.retryAttempts,
      environment: env,
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node22',
        platform: 'node',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // The AWS SDK v3 ships with the nodejs22.x runtime (every client and lib-dynamodb),
        // so it stays out of the bundle: with it bundled, a function using DynamoDB, Secrets
        // Manager and Octokit measured ~980 KB, at the edge of the < 1 MB cold-start budget;
        // without, ~630 KB. We use only long-stable commands of it. Everything else is
        // bundled (test/infra/synth-cli.test.ts checks each bundle's size).
        externalModules: ['@aws-sdk/*'],
        // CommonJS dependencies call require(); an ESM bundle has none unless we make it.
        banner: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });

    // X-Ray takes no resource-level permissions: its two write actions need "*".
    acknowledge(
      this.role,
      'AwsSolutions-IAM5[Resource::*]',
      'Only X-Ray PutTraceSegments/PutTelemetryRecords use "*": X-Ray supports no resource-level permissions (test/infra pins this).',
    );
    acknowledge(
      this.fn,
      'AwsSolutions-L1',
      'nodejs22.x is the runtime this project targets and tests on (ARCHITECTURE.md); moving up is a deliberate change.',
    );
  }

  /** Sets one environment variable (for values that come with no IAM grant). */
  setEnv(name: string, value: string): this {
    this.fn.addEnvironment(name, value);
    return this;
  }

  /** Adds one IAM statement to this function's role. */
  allow(actions: string[], resources: string[]): this {
    this.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources }));
    return this;
  }

  get account(): string {
    return Stack.of(this).account;
  }
}
