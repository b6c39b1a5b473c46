import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
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

/**
 * Counted from the access log (metric filters), in a namespace of their own: API Gateway
 * publishes no count of the 429s it answers, and its latency metrics cover every route at once.
 */
export const frontDoorNamespace = 'AgentIntegrations/FrontDoor';
export const frontDoorMetrics = { webhookThrottled: 'WebhookThrottled', webhookLatency: 'WebhookLatency', throttled: 'Throttled' };

/** Route keys of the webhook routes (`POST /webhooks/...`), as a metric filter matches them. */
const webhookRouteKeys = 'POST /webhooks/*';

/**
 * One JSON line per request. Status and latency unquoted, so metric filters compare numbers;
 * the integration's latency is `-` when no function was reached (a 429 at the front door).
 */
const accessLogFormat = AccessLogFormat.custom(
  '{"requestId":"$context.requestId","ip":"$context.identity.sourceIp","requestTime":"$context.requestTime",' +
    '"routeKey":"$context.routeKey","status":$context.status,"responseLength":"$context.responseLength",' +
    '"responseLatency":$context.responseLatency,"integrationLatency":"$context.integrationLatency",' +
    '"integrationStatus":"$context.integrationStatus","error":"$context.error.message"}',
);

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
  private readonly stageName: string;
  private readonly functionThrottles = new Map<IntegrationFunction, Throttle>();
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
      accessLogSettings: { destination: new apigw.LogGroupLogDestination(this.accessLogs), format: accessLogFormat },
    });
    const filter = (id: string, pattern: string, metricName: string, metricValue: string) =>
      this.accessLogs.addMetricFilter(id, {
        filterPattern: logs.FilterPattern.literal(pattern),
        metricNamespace: frontDoorNamespace,
        metricName: `${metricName}-${props.stage}`,
        metricValue,
      });
    filter('Throttled', '{ $.status = 429 }', frontDoorMetrics.throttled, '1');
    filter('WebhookThrottled', `{ $.status = 429 && $.routeKey = "${webhookRouteKeys}" }`, frontDoorMetrics.webhookThrottled, '1');
    filter('WebhookLatency', `{ $.routeKey = "${webhookRouteKeys}" }`, frontDoorMetrics.webhookLatency, '$.responseLatency');
    this.stageName = props.stage;
  }

  /** A metric counted from the access log (frontDoorMetrics). */
  metric(name: string, statistic: string, period: Duration = Duration.minutes(1)): cloudwatch.Metric {
    return new cloudwatch.Metric({ namespace: frontDoorNamespace, metricName: `${name}-${this.stageName}`, statistic, period });
  }

  /** Requests API Gateway answered 4xx (a 429 of a throttle included), and all requests, over `period`. */
  clientErrors(period: Duration): { errors: cloudwatch.Metric; requests: cloudwatch.Metric } {
    return {
      errors: this.stage.metricClientError({ period, statistic: 'Sum' }),
      requests: this.stage.metricCount({ period, statistic: 'Sum' }),
    };
  }

  /** The base URL every public link is built on (no trailing slash). */
  get url(): string {
    return this.api.apiEndpoint;
  }

  /**
   * Routes `paths` (HTTP API route paths, any method) to one function, authorization in code.
   * Each route gets a token bucket of its own in place of the stage default: the path's
   * `throttle`, else the function's (`limit`).
   */
  route(f: IntegrationFunction, paths: { path: string; methods: apigw.HttpMethod[]; throttle?: Throttle }[]): void {
    const integration = new HttpLambdaIntegration(`${f.node.id}Integration`, f.fn, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    });
    for (const p of paths) {
      const routes = this.api.addRoutes({ path: p.path, methods: p.methods, integration });
      for (const r of routes) {
        const throttle = p.throttle ?? this.functionThrottles.get(f);
        if (throttle) this.throttleRoute(r, throttle);
        acknowledge(
          r,
          'AwsSolutions-APIG4',
          'Authorization is in the function, before any side effect: webhooks verify X-Hub-Signature-256 with the ' +
            'endpoint secret, OAuth callbacks a single-use state, everything else the platform bearer key (docs/api.md).',
        );
      }
    }
  }

  /** The token bucket of each route of `f` routed from now on without a `throttle` of its own. */
  limit(f: IntegrationFunction, throttle: Throttle): void {
    this.functionThrottles.set(f, throttle);
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
