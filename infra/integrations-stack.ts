import { CfnOutput, Duration, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource, type SqsEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import { WorkQueue } from './constructs/work-queue';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { DataStores } from './constructs/data-stores';
import { HttpFrontDoor, type Throttle } from './constructs/http-front-door';
import { IntegrationFunction, type FunctionName, type IntegrationFunctionProps } from './constructs/integration-function';
import { Operations } from './constructs/operations';
import { PlatformSecrets, type SecretAccess } from './constructs/platform-secrets';
import { TokenKey } from './constructs/token-key';
import { productionStage, type StackSettings } from './settings';
import { tableAccessByRole } from '../shared/store/table-access';

export interface IntegrationsStackProps extends StackProps {
  settings: StackSettings;
}

/** Timeouts: the intake answers well inside the code host's 10 s; the queue's visibility is 6x dispatch's. */
export const timeouts: Record<FunctionName, Duration> = {
  'webhook-intake': Duration.seconds(10),
  dispatch: Duration.seconds(30),
  poller: Duration.seconds(50),
  'redelivery-sweep': Duration.minutes(2),
  'tool-step': Duration.seconds(60),
  oauth: Duration.seconds(15),
  'platform-api': Duration.seconds(29),
};

/**
 * How the dispatch function reads its two queues (the throughput model is in
 * docs/reliability.md, "Throughput"). Both report partial batch failures. A backlog must not
 * take every concurrent execution: the intake answers the code host, which does not retry a
 * 5xx; and there is no reserved concurrency, which an account with the new-account limit of
 * 10 cannot set (Lambda keeps 100 unreserved).
 * - main: batches of up to 50 gathered for at most 1 s. A batch lasts as long as its slowest
 *   POST (the full 10 s), so the events of an agent whose recent answers were slow are sent on
 *   to the slow lane before they are posted (shared/dispatch/agent-pace.ts): its batches then
 *   carry the quick answers of every other tenant, hundreds a second.
 * - slow: the same batches, each POST with the full 10 s; at most `dispatchSlowMaxConcurrency`
 *   at once: `C * 50 / a` events a second for agents answering in `a` seconds.
 */
export const dispatchEventSources = {
  main: (maxConcurrency: number): SqsEventSourceProps => ({
    batchSize: 50,
    maxBatchingWindow: Duration.seconds(1),
    reportBatchItemFailures: true,
    maxConcurrency,
  }),
  slow: (maxConcurrency: number) =>
    ({
      batchSize: 50,
      maxBatchingWindow: Duration.seconds(1),
      reportBatchItemFailures: true,
      maxConcurrency,
    }) satisfies SqsEventSourceProps,
};

/**
 * The polling work queue's event source: 10 work items (up to 25 units each) a batch, at
 * most 20 batches at once. One worker reads about 100 units a second (32 reads in flight,
 * about 0.3 s each), so 20 take some 120,000 units a minute, the planner's bound on a round;
 * a token is read by at most 4 reads per worker at once, 80 in all, under the code host's
 * 100 concurrent requests.
 */
export const pollWorkerSource = { batchSize: 10, maxConcurrency: 20 };

/**
 * The sweep's work queue's event source: 10 hooks a batch, walked side by side, at most 20
 * batches at once. A hook with nothing lost costs a page or two (about a second), so 200 at
 * once walk some 60,000 hooks in a 5-minute interval, the planner's bound on a round
 * (docs/performance.md, "Sweep capacity").
 */
export const sweepWorkerSource = { batchSize: 10, maxConcurrency: 20 };

/**
 * Each route group's own token bucket (route settings on the stage), so that no group can use
 * up another's: the buckets are separate, and each group's rate times its latency bounds the
 * Lambda executions it can hold, which all functions share (docs/operations.md, "Concurrency").
 * - webhooks: the code host sends an App's deliveries in bursts of hundreds a second and does
 *   not retry one answered 429, so at least 1,000/s (`webhookRateLimit`), burst twice that.
 * - platform API and OAuth: the platform's back end and people's browsers, far fewer.
 * - tool steps and MCP: agents; a step waiting for a rate limit holds its execution up to 20 s.
 */
export const routeThrottles = {
  webhook: (rateLimit: number): Throttle => ({ rateLimit, burstLimit: 2 * rateLimit }),
  platform: { rateLimit: 50, burstLimit: 100 } satisfies Throttle,
  oauth: { rateLimit: 10, burstLimit: 20 } satisfies Throttle,
  tools: { rateLimit: 50, burstLimit: 100 } satisfies Throttle,
};

/**
 * The whole product on AWS, one stack per stage (`AgentIntegrations-<stage>`): data stores,
 * secrets, one function per role with least-privilege grants, the HTTP front door, the
 * schedules, and the dashboard and alarms.
 */
export class IntegrationsStack extends Stack {
  readonly functions: Record<FunctionName, IntegrationFunction>;
  readonly data: DataStores;
  readonly secrets: PlatformSecrets;
  readonly tokenKey: TokenKey;
  readonly front: HttpFrontDoor;
  readonly operations: Operations;

  constructor(scope: Construct, id: string, props: IntegrationsStackProps) {
    super(scope, id, props);
    const s = props.settings;
    if (s.destroyData && s.stage === productionStage) throw new Error(`destroyData is refused for the ${productionStage} stage`);
    // Data is kept when the stack is updated or deleted, but a first create that rolls back
    // deletes what it made, so the retry starts clean (RETAIN would leave it behind).
    const removalPolicy = s.destroyData ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const logRetention = s.logRetentionDays as RetentionDays;
    Tags.of(this).add('app', 'agent-integrations');
    Tags.of(this).add('stage', s.stage);

    this.data = new DataStores(this, 'Data', {
      stage: s.stage,
      removalPolicy,
      deletionProtection: !s.destroyData,
      dispatchTimeout: timeouts.dispatch,
    });
    this.secrets = new PlatformSecrets(this, 'Secrets', { stage: s.stage, removalPolicy });
    this.tokenKey = new TokenKey(this, 'TokenKey', { stage: s.stage, removalPolicy });
    this.front = new HttpFrontDoor(this, 'Http', { stage: s.stage, logRetention, removalPolicy });
    const publicUrl = s.publicUrl?.replace(/\/+$/, '') ?? this.front.url;

    const providerEnv = {
      GITHUB_API_URL: s.githubApiUrl,
      GITHUB_OAUTH_URL: s.githubOAuthUrl,
      GITHUB_CLIENT_ID: s.githubClientId,
      GITHUB_APP_ID: s.githubAppId,
      GITHUB_APP_SLUG: s.githubAppSlug,
      GITHUB_APP_CLIENT_ID: s.githubAppClientId,
      GITHUB_ALLOWED_PRIVATE_HOSTS: s.githubAllowedPrivateHosts,
      CONTENTSNARE_API_URL: s.contentsnareApiUrl,
      CONTENTSNARE_OAUTH_URL: s.contentsnareOAuthUrl,
      CONTENTSNARE_OAUTH_AUTHORIZE_PATH: s.contentsnareAuthorizePath,
      CONTENTSNARE_CLIENT_ID: s.contentsnareClientId,
    };
    const make = (name: FunctionName, description: string, extra: Partial<IntegrationFunctionProps> = {}) =>
      new IntegrationFunction(this, pascal(name), {
        name,
        stage: s.stage,
        description,
        timeout: timeouts[name],
        logRetention,
        removalPolicy,
        ...extra,
      });

    const { data, secrets } = this;
    // Both providers' connection tokens: functions that call either provider with a stored token.
    const useTokenAreas = (f: IntegrationFunction, access: SecretAccess[]) => {
      secrets.useArea(f, 'connections/', access);
      secrets.useArea(f, 'contentsnare-connections/', access);
    };
    // The collection service's deliveries are read back at its API: the providers' settings.
    const intake = make('webhook-intake', 'Verifies, dedupes and fans out code-host webhook deliveries', { environment: providerEnv });
    data.useTable(intake, 'readWrite', tableAccessByRole['webhook-intake']); // routing reads + conditional delivery claims
    data.sendToDispatchQueue(intake);
    data.useBlobs(intake, 'put');
    secrets.useArea(intake, 'endpoints/', ['read']);
    // The one function anonymous traffic reaches holds no connection token and no code-host credential: the
    // collection service's deliveries are read back, and the App's lifecycle read back, by the dispatch consumer.
    intake.setEnv('SECRET_LEGACY_TOKEN_NAMES', 'off');
    // The GitHub App's one webhook is signed with the App's webhook secret; the App made by the manifest flow is named
    // by the identity secret.
    secrets.useSecret(intake, 'GITHUB_APP_WEBHOOK_SECRET_ARN');
    secrets.useSecret(intake, 'GITHUB_APP_IDENTITY_SECRET_ARN');

    const dispatch = make('dispatch', 'Posts signed trigger events to the agent runtime', {
      environment: { ...providerEnv, AGENT_RUNTIME_URL: s.agentRuntimeUrl },
    });
    // Dispatch claims, and the connection's token for the follow-up reads of the code host (shared/dispatch/follow-up.ts).
    data.useTable(dispatch, 'readWrite', tableAccessByRole.dispatch);
    useTokenAreas(dispatch, ['read', 'write']);
    secrets.useSecret(dispatch, 'GITHUB_CLIENT_SECRET_ARN');
    secrets.useSecret(dispatch, 'CONTENTSNARE_CLIENT_SECRET_ARN');
    data.useBlobs(dispatch, 'consume');
    // A collection-service read-back (shared/dispatch/snare-read-back.ts) queues events, a big one stored aside.
    data.useBlobs(dispatch, 'put');
    secrets.useSecret(dispatch, 'DISPATCH_SIGNING_SECRET_ARN');
    // Each grants receive/delete/ChangeMessageVisibility on its queue only.
    dispatch.fn.addEventSource(new SqsEventSource(data.queue, dispatchEventSources.main(s.dispatchMaxConcurrency)));
    dispatch.fn.addEventSource(new SqsEventSource(data.slowQueue, dispatchEventSources.slow(s.dispatchSlowMaxConcurrency)));
    // Retried, throttled and deferred events go back on their queue with a delay, and an event
    // out of tries to the dead-letter queue; unanswered ones move to the slow lane
    // (shared/dispatch/settlement.ts).
    data.sendToDispatchQueue(dispatch);
    data.sendToSlowLane(dispatch);
    data.sendToDeadLetters(dispatch);

    // GitHub App connections: the App's key mints installation tokens, shared by every
    // container in the table, sealed under the token key; the App's client secret refreshes its user tokens.
    const githubAppTokenUser = (f: IntegrationFunction) => {
      this.tokenKey.useKey(f);
      secrets.useSecret(f, 'GITHUB_APP_PRIVATE_KEY_SECRET_ARN');
      secrets.useSecret(f, 'GITHUB_APP_CLIENT_SECRET_ARN');
      secrets.useSecret(f, 'GITHUB_APP_IDENTITY_SECRET_ARN');
    };
    githubAppTokenUser(dispatch);
    // Functions calling the providers with a stored token, which they may refresh.
    const tokenUser = (f: IntegrationFunction, name: FunctionName) => {
      data.useTable(f, 'readWrite', tableAccessByRole[name]);
      useTokenAreas(f, ['read', 'write']);
      secrets.useSecret(f, 'GITHUB_CLIENT_SECRET_ARN');
      secrets.useSecret(f, 'CONTENTSNARE_CLIENT_SECRET_ARN');
      githubAppTokenUser(f);
    };
    const scheduled = { retryAttempts: 0, environment: providerEnv };
    const poller = make('poller', 'Polls triggers the code host has no webhook for', {
      ...scheduled,
      environment: { ...providerEnv, POLL_INTERVAL_SECONDS: '60' },
    });
    tokenUser(poller, 'poller');
    // New items are enqueued like webhook events: bodies too big for a message stored aside.
    data.sendToDispatchQueue(poller);
    data.useBlobs(poller, 'put');
    // The schedule plans each round onto the work queue; the same function takes the work items (docs/performance.md, "Polling").
    const pollWork = new WorkQueue(this, 'PollWork', { workerTimeout: timeouts.poller, maxReceiveCount: 3, removalPolicy });
    pollWork.plannedBy(poller, 'POLL_WORK_QUEUE_URL');
    pollWork.workedBy(poller, pollWorkerSource);
    // The sweep only asks the code host to redeliver (the intake then enqueues): no dispatch queue, no bucket.
    // Its App key (tokenUser) makes the JWT that reads the GitHub App webhook's delivery log.
    const sweep = make('redelivery-sweep', 'Asks the code host to redeliver webhook deliveries that failed', scheduled);
    tokenUser(sweep, 'redelivery-sweep');
    // The schedule plans one work item per hook; the same function walks them, and sends on a walk its budget stopped.
    const sweepWork = new WorkQueue(this, 'SweepWork', { workerTimeout: timeouts['redelivery-sweep'], maxReceiveCount: 3, removalPolicy });
    sweepWork.plannedBy(sweep, 'SWEEP_WORK_QUEUE_URL');
    sweepWork.workedBy(sweep, sweepWorkerSource);
    // The next tick does the work again, so a failed run is not retried.
    new events.Rule(this, 'PollSchedule', {
      ruleName: `agent-integrations-${s.stage}-poller`,
      schedule: events.Schedule.rate(Duration.minutes(1)),
      targets: [new targets.LambdaFunction(poller.fn, { retryAttempts: 0 })],
    });
    new events.Rule(this, 'SweepSchedule', {
      ruleName: `agent-integrations-${s.stage}-redelivery-sweep`,
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new targets.LambdaFunction(sweep.fn, { retryAttempts: 0 })],
    });

    const toolStep = make('tool-step', 'Runs tool steps for the agent runtime (HTTP and direct invoke)', {
      environment: { ...providerEnv, RATE_LIMIT_MAX_WAIT_SECONDS: String(s.rateLimitMaxWaitSeconds) },
    });
    tokenUser(toolStep, 'tool-step');
    secrets.useSecret(toolStep, 'PLATFORM_API_KEY_SECRET_ARN');

    const oauth = make('oauth', 'OAuth authorize and callback for GitHub and Content Snare', {
      environment: { ...providerEnv, PUBLIC_URL: publicUrl, ALLOWED_RETURN_ORIGINS: s.allowedReturnOrigins },
    });
    tokenUser(oauth, 'oauth');
    secrets.useSecret(oauth, 'PLATFORM_API_KEY_SECRET_ARN');
    // The GitHub App made by the manifest flow (POST /github-app/manifest): its three secrets and its identity are written here.
    for (const name of [
      'GITHUB_APP_PRIVATE_KEY_SECRET_ARN',
      'GITHUB_APP_CLIENT_SECRET_ARN',
      'GITHUB_APP_WEBHOOK_SECRET_ARN',
      'GITHUB_APP_IDENTITY_SECRET_ARN',
    ] as const)
      secrets.letWrite(oauth, name);

    const platformApi = make('platform-api', 'Connections and subscriptions API for the platform', {
      environment: { ...providerEnv, PUBLIC_URL: publicUrl },
    });
    data.useTable(platformApi, 'readWrite', tableAccessByRole['platform-api']);
    useTokenAreas(platformApi, ['read', 'write', 'delete']);
    secrets.useArea(platformApi, 'endpoints/', ['read', 'write', 'delete']);
    secrets.useSecret(platformApi, 'PLATFORM_API_KEY_SECRET_ARN');
    secrets.useSecret(platformApi, 'GITHUB_CLIENT_SECRET_ARN');
    secrets.useSecret(platformApi, 'CONTENTSNARE_CLIENT_SECRET_ARN');
    githubAppTokenUser(platformApi);
    // POST /events/{id}/replay queues the stored body again (a claim-check body read back, or stored aside).
    data.sendToDispatchQueue(platformApi);
    data.useBlobs(platformApi, 'replay');

    const { GET, POST, PATCH, DELETE } = HttpMethod;
    // Anonymous until the signature is checked: a bucket of its own, so a flood of webhook
    // traffic is refused here and cannot use up the platform API's (and the reverse).
    const webhookThrottle = routeThrottles.webhook(s.webhookRateLimit);
    this.front.limit(oauth, routeThrottles.oauth);
    this.front.limit(platformApi, routeThrottles.platform);
    this.front.limit(toolStep, routeThrottles.tools);
    this.front.route(intake, [
      { path: '/webhooks/github/{endpointId}', methods: [POST], throttle: webhookThrottle },
      // The GitHub App's one webhook: named, though `{endpointId}` would match it too, so the route table says it.
      { path: '/webhooks/github/app', methods: [POST], throttle: webhookThrottle },
    ]);
    this.front.route(intake, [{ path: '/webhooks/contentsnare/{connectionId}/{token}', methods: [POST], throttle: webhookThrottle }]);
    this.front.route(oauth, [
      { path: '/oauth/{provider}/authorize', methods: [POST] },
      { path: '/oauth/{provider}/callback', methods: [GET] },
      { path: '/oauth/{provider}/start', methods: [GET] },
      { path: '/oauth/github-app/authorize', methods: [POST] },
      { path: '/oauth/github-app/callback', methods: [GET] },
      { path: '/oauth/github-app/start', methods: [GET] },
      // The GitHub App made in one step: its manifest (platform key, checked by the function), the page posting it, GitHub's return.
      { path: '/github-app/manifest', methods: [POST] },
      { path: '/github-app/manifest/start', methods: [GET] },
      { path: '/github-app/manifest/callback', methods: [GET] },
      // The connect page of the platform's end users: its session (platform key, checked by the function) and the page.
      { path: '/connect/sessions', methods: [POST] },
      { path: '/connect/{token}', methods: [GET, POST] },
      // The API's own description (no key), beside the other open routes: built into this bundle, loaded on first use.
      { path: '/openapi.json', methods: [GET] },
    ]);
    this.front.route(platformApi, [
      { path: '/healthz', methods: [GET] },
      { path: '/connections', methods: [GET, POST] },
      { path: '/connections/{id}', methods: [GET, PATCH, DELETE] },
      { path: '/subscriptions', methods: [GET, POST] },
      { path: '/subscriptions/{id}', methods: [GET, DELETE] },
      { path: '/triggers', methods: [GET] },
      { path: '/keys', methods: [GET, POST] },
      { path: '/keys/{id}', methods: [DELETE] },
      { path: '/events', methods: [GET] },
      { path: '/events/{id}', methods: [GET] },
      { path: '/events/{id}/replay', methods: [POST] },
    ]);
    this.front.route(toolStep, [
      { path: '/tools', methods: [GET] },
      { path: '/tools/{toolId}/invoke', methods: [POST] },
      // MCP's Streamable HTTP: POST carries every message; GET and DELETE answer 405 (stateless, no sessions).
      { path: '/mcp', methods: [GET, POST, DELETE] },
      { path: '/mcp/{connectionId}', methods: [GET, POST, DELETE] },
      { path: '/mcp/x/{toolset}', methods: [POST] },
      { path: '/mcp/{connectionId}/x/{toolset}', methods: [POST] },
    ]);

    this.functions = {
      'webhook-intake': intake,
      dispatch,
      poller,
      'redelivery-sweep': sweep,
      'tool-step': toolStep,
      oauth,
      'platform-api': platformApi,
    };
    this.operations = new Operations(this, 'Operations', {
      stage: s.stage,
      functions: this.functions,
      queue: data.queue,
      slowQueue: data.slowQueue,
      deadLetterQueue: data.deadLetterQueue,
      workQueues: [
        { name: 'poll-work', queue: pollWork.queue, deadLetterQueue: pollWork.deadLetterQueue },
        { name: 'sweep-work', queue: sweepWork.queue, deadLetterQueue: sweepWork.deadLetterQueue },
      ],
      front: this.front,
      alarmEmail: s.alarmEmail,
      removalPolicy,
    });

    const out = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    out('PublicUrl', publicUrl, 'PUBLIC_URL: base of webhook and OAuth callback URLs and of the platform API');
    out('ApiEndpoint', this.front.url, 'The HTTP API endpoint (point a custom domain here)');
    out('ToolStepFunctionArn', toolStep.fn.functionArn, 'Invoke directly with {toolId, connectionId, input}');
    out('TableName', data.table.tableName, 'DynamoDB table');
    out('DispatchQueueUrl', data.queue.queueUrl, 'Dispatch queue');
    out('SlowQueueUrl', data.slowQueue.queueUrl, 'Dispatch slow lane: events the agent runtime did not answer within 2 s');
    out('DeadLetterQueueUrl', data.deadLetterQueue.queueUrl, 'DLQ_URL for `npm run dlq -- list|redrive`');
    out('PayloadBucketName', data.bucket.bucketName, 'Claim-check payloads');
    out('PlatformApiKeySecretArn', secrets.secrets.PLATFORM_API_KEY_SECRET_ARN.secretArn, 'Read the platform bearer key here');
    out('DispatchSigningSecretArn', secrets.secrets.DISPATCH_SIGNING_SECRET_ARN.secretArn, 'Give the agent runtime this key');
    out('GithubClientSecretArn', secrets.secrets.GITHUB_CLIENT_SECRET_ARN.secretArn, 'Set the GitHub OAuth client secret here');
    out(
      'ContentsnareClientSecretArn',
      secrets.secrets.CONTENTSNARE_CLIENT_SECRET_ARN.secretArn,
      'Set the Content Snare client secret here',
    );
    out(
      'GithubAppPrivateKeySecretArn',
      secrets.secrets.GITHUB_APP_PRIVATE_KEY_SECRET_ARN.secretArn,
      "Set the GitHub App's private key (PEM) here",
    );
    out('GithubAppClientSecretArn', secrets.secrets.GITHUB_APP_CLIENT_SECRET_ARN.secretArn, "Set the GitHub App's client secret here");
    out('GithubAppWebhookSecretArn', secrets.secrets.GITHUB_APP_WEBHOOK_SECRET_ARN.secretArn, "Set the GitHub App's webhook secret here");
    out(
      'GithubAppIdentitySecretArn',
      secrets.secrets.GITHUB_APP_IDENTITY_SECRET_ARN.secretArn,
      'The GitHub App made by POST /github-app/manifest: {"appId","slug","clientId"}',
    );
    out('DashboardName', this.operations.dashboard.dashboardName, 'CloudWatch dashboard');
  }
}

function pascal(s: string): string {
  return s.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
}
