import type { RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { IntegrationFunction } from './integration-function';
import { acknowledge } from './nag';

/** Requests per second and bucket size of API Gateway's token bucket. */
export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/** The stage's default, for routes without their own: a ceiling against floods far above what the platform sends. */
export const defaultThrottle: Throttle = { rateLimit: 200, burstLimit: 400 };

export interface HttpFrontDoorProps {
  stage: string;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

/**
 * One HTTP API in front of the HTTP functions, so the whole contract (webhooks, OAuth
 * callbacks, platform API, tools) shares one base URL: webhook and OAuth callback URLs are
 * built on it (PUBLIC_URL) and reach the right function. Function URLs would give each
 * function its own host, and a function cannot learn its own URL from its environment.
 * Payload format 2.0 is the Function URL shape `shared/http/lambda-http.ts` reads.
 */
export class HttpFrontDoor extends Construct {
  readonly api: apigw.HttpApi;
  readonly accessLogs: logs.LogGroup;
  private readonly stage: apigw.HttpStage;
  private readonly routeThrottles: Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }> = {};

  constructor(scope: Construct, id: string, props: HttpFrontDoorProps) {
    super(scope, id);
    this.api = new apigw.HttpApi(this, 'Api', {
      apiName: `agent-integrations-${props.stage}`,
      description: 'Webhook intake, OAuth, platform API and tool steps',
      createDefaultStage: false,
    });
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: defaultThrottle,
      // The HTTP API's default format: JSON with request id, route, status and latency.
      accessLogSettings: { destination: new apigw.LogGroupLogDestination(this.accessLogs) },
    });
  }

  /** The base URL every public link is built on (no trailing slash). */
  get url(): string {
    return this.api.apiEndpoint;
  }

  /**
   * Routes `paths` (HTTP API route paths, any method) to one function, authorization in code.
   * A path with its own `throttle` gets a token bucket of its own in place of the stage default.
   */
  route(f: IntegrationFunction, paths: { path: string; methods: apigw.HttpMethod[]; throttle?: Throttle }[]): void {
    const integration = new HttpLambdaIntegration(`${f.node.id}Integration`, f.fn, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    });
    for (const p of paths) {
      const routes = this.api.addRoutes({ path: p.path, methods: p.methods, integration });
      for (const r of routes) {
        if (p.throttle) this.throttleRoute(r, p.throttle);
        acknowledge(
          r,
          'AwsSolutions-APIG4',
          'Authorization is in the function, before any side effect: webhooks verify X-Hub-Signature-256 with the ' +
            'endpoint secret, OAuth callbacks a single-use state, everything else the platform bearer key (docs/api.md).',
        );
      }
    }
  }

  private throttleRoute(route: apigw.HttpRoute, t: Throttle): void {
    const cfnRoute = route.node.defaultChild as apigw.CfnRoute;
    this.routeThrottles[cfnRoute.routeKey] = { ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit };
    const cfnStage = this.stage.node.defaultChild as apigw.CfnStage;
    cfnStage.routeSettings = this.routeThrottles;
    // Route settings name a route key that must exist when the stage is created or updated.
    cfnStage.node.addDependency(route);
  }
}
