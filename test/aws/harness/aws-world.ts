import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../../shared/adapters/local/embedded-dynamo';
import type { StackSecret } from '../../../infra/constructs/platform-secrets';
import type { Service } from '../iam/classify-request';
import {
  buildResolver,
  functionEnvironment,
  functionRoleId,
  lambdaFunctions,
  policiesForFunction,
  resolveIntrinsics,
  tableSchemas,
  type CfnTemplate,
  type Resolver,
  type RolePolicies,
} from '../iam/template-policies';
import { harnessKey, startIamProxy, type AwsCall, type IamProxy } from './iam-proxy';
import { LambdaWorker, type InvokeOutcome } from './lambda-worker';
import { serveFairly } from './fair-queues';
import { startKmsStandIn, type KmsStandIn } from './kms-stand-in';
import { lambdaMessageAttributes } from './lambda-records';
import { startSecretsManagerEmulator, type SecretsManagerEmulator } from './secrets-manager-emulator';
import { loadTemplate, placeholders, type Placeholder } from './stack-template';

export const region = 'us-east-1';
/** fauxqs names every queue under this account; the suite's ARNs use it throughout. */
export const accountId = '000000000000';

type Fauxqs = Awaited<ReturnType<typeof startFauxqs>>;

/** The function roles (folders under functions/). */
export type Role = 'webhook-intake' | 'dispatch' | 'poller' | 'redelivery-sweep' | 'tool-step' | 'oauth' | 'platform-api';

export interface AwsWorldOptions {
  /** This world's values of the deployment settings (infra/settings.ts keys): the fakes' URLs, the App's ids. */
  settings: Partial<Record<Placeholder, string>>;
  /** Values of the stack's own secrets, by the variable that carries their ARN; others get a random value. */
  secretValues?: Partial<Record<StackSecret, string>>;
}

interface Mapping {
  id: string;
  role: Role;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  windowMs: number;
  reportsFailures: boolean;
}

/**
 * The stack as synthesized, run over the wire: each function's real handler in its own worker
 * (the template's environment, its role's access key), DynamoDB on dynalite, SQS (its fair
 * queues: fair-queues.ts) and S3 on fauxqs, Secrets Manager and KMS on the suite's stand-ins, all behind the IAM-enforcing proxy; the HTTP
 * API's routes on a loopback front door that builds API Gateway v2 events; the SQS event source
 * mappings and the schedules driven on demand.
 */
export class AwsWorld {
  readonly functions = new Map<Role, LambdaWorker>();
  private readonly mappings: Mapping[] = [];
  private readonly routes: Array<{ method: string; re: RegExp; names: string[]; routeKey: string; role: Role }> = [];
  private frontDoor?: Server;
  url = '';
  private readonly admin: { sqs: SQSClient; dynamo: DynamoDBClient };

  private constructor(
    readonly template: CfnTemplate,
    readonly resolver: Resolver,
    readonly proxy: IamProxy,
    readonly secrets: SecretsManagerEmulator,
    readonly kms: KmsStandIn,
    private readonly dynamo: EmbeddedDynamo,
    readonly fauxqs: Fauxqs,
    readonly policies: Map<string, RolePolicies>,
    readonly roleKeys: Map<Role, string>,
    private readonly settings: Partial<Record<Placeholder, string>>,
  ) {
    const credentials = { accessKeyId: harnessKey, secretAccessKey: 'x' };
    this.admin = {
      sqs: new SQSClient({ region, endpoint: proxy.url, credentials }),
      dynamo: new DynamoDBClient({ region, endpoint: proxy.url, credentials }),
    };
  }

  static async start(o: AwsWorldOptions): Promise<AwsWorld> {
    // The front door listens first: its URL is the stack's public URL (webhook and callback URLs).
    const frontDoor = createServer();
    await new Promise<void>((resolve) => frontDoor.listen(0, '127.0.0.1', resolve));
    const publicUrl = `http://127.0.0.1:${(frontDoor.address() as AddressInfo).port}`;
    const { template, stackName } = await loadTemplate();
    const settings: Partial<Record<Placeholder, string>> = { publicUrl, ...o.settings };
    // SQS makes a standard queue fair once its messages carry a group; fauxqs, only with this.
    await serveFairly();
    const [dynamo, fauxqs, secrets, kms] = await Promise.all([
      startEmbeddedDynamo(),
      startFauxqs({ port: 0, logger: false }),
      startSecretsManagerEmulator({ region, accountId }),
      startKmsStandIn({ region, accountId }),
    ]);
    // A queue URL names the endpoint it is served at (the SDK sends to the QueueUrl's host): the proxy's.
    const proxy = await startIamProxy();
    const resolver = buildResolver(template, {
      region,
      accountId,
      stackName,
      queueUrl: (name) => `${proxy.url}/${accountId}/${name}`,
    });
    const policies = new Map<string, RolePolicies>();
    const roleKeys = new Map<Role, string>();
    for (const fnId of lambdaFunctions(template)) {
      const role = roleOf(template, fnId);
      if (!role) continue;
      const roleId = functionRoleId(template, fnId);
      policies.set(roleId, policiesForFunction(template, fnId, resolver));
      roleKeys.set(role, roleId);
    }
    proxy.configure({
      queueUrlPrefix: {
        ours: `${proxy.url}/${accountId}/`,
        emulator: `http://sqs.${region}.localhost:${new URL(fauxqs.address).port}/${accountId}/`,
      },
      upstreams: {
        dynamodb: dynamo.endpoint,
        sqs: fauxqs.address,
        s3: fauxqs.address,
        secretsmanager: secrets.url,
        kms: kms.url,
      } satisfies Record<Service, string>,
      policies,
      classify: {
        resolver,
        tables: tableSchemas(template, resolver),
        s3Hosts: ['127.0.0.1', 'localhost'],
        secretArn: (id) =>
          secrets.arnOf(id) ?? (id.startsWith('arn:') ? id : `arn:aws:secretsmanager:${region}:${accountId}:secret:${id}-??????`),
      },
    });
    const world = new AwsWorld(template, resolver, proxy, secrets, kms, dynamo, fauxqs, policies, roleKeys, settings);
    await world.provision(o);
    await world.startFunctions();
    world.startFrontDoor(frontDoor, publicUrl);
    return world;
  }

  /** What CloudFormation would have made: the table, the queues (redrive as the template says), the bucket, the stack's secrets and keys. */
  private async provision(o: AwsWorldOptions): Promise<void> {
    const r = this.resolver;
    const res = Object.entries(this.template.Resources);
    for (const [id, t] of res.filter(([, t]) => t.Type === 'AWS::DynamoDB::Table')) {
      const p = t.Properties as Record<string, unknown>;
      await this.admin.dynamo.send(
        new CreateTableCommand({
          TableName: r.resources[id]?.Ref,
          KeySchema: p.KeySchema as never,
          AttributeDefinitions: p.AttributeDefinitions as never,
          GlobalSecondaryIndexes: p.GlobalSecondaryIndexes as never,
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
    }
    // Dead-letter queues first: a queue's redrive policy names one.
    const queues = res.filter(([, t]) => t.Type === 'AWS::SQS::Queue');
    queues.sort(([, a], [, b]) => Number(a.Properties?.RedrivePolicy !== undefined) - Number(b.Properties?.RedrivePolicy !== undefined));
    for (const [id, t] of queues) {
      const p = (resolveIntrinsics(t.Properties ?? {}, r, id) ?? {}) as Record<string, unknown>;
      const attributes: Record<string, string> = {};
      for (const k of ['VisibilityTimeout', 'MessageRetentionPeriod', 'DelaySeconds', 'ReceiveMessageWaitTimeSeconds'])
        if (p[k] !== undefined) attributes[k] = String(p[k]);
      // As SQS's API takes it (CloudFormation passes the policy on as the queue attribute, count as a string).
      if (p.RedrivePolicy) {
        const rp = p.RedrivePolicy as { deadLetterTargetArn: string; maxReceiveCount: number | string };
        attributes.RedrivePolicy = JSON.stringify({
          deadLetterTargetArn: rp.deadLetterTargetArn,
          maxReceiveCount: String(rp.maxReceiveCount),
        });
      }
      this.fauxqs.createQueue(r.resources[id]?.QueueName as string, { attributes });
    }
    for (const [id] of res.filter(([, t]) => t.Type === 'AWS::S3::Bucket')) this.fauxqs.createBucket(r.resources[id]?.Ref as string);
    for (const [id] of res.filter(([, t]) => t.Type === 'AWS::KMS::Key')) this.kms.createKey(r.resources[id]?.Arn as string);
    // Each stack secret, under the ARN the resolver gives it, with its value.
    const byVariable = new Map<string, string>();
    for (const [, t] of res.filter(([, t]) => t.Type === 'AWS::Lambda::Function')) {
      const vars = ((t.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables ?? {}) as Record<string, unknown>;
      for (const [name, v] of Object.entries(vars)) {
        const ref = (v as { Ref?: string }).Ref;
        if (name.endsWith('_SECRET_ARN') && ref) byVariable.set(ref, name);
      }
    }
    for (const [id] of res.filter(([, t]) => t.Type === 'AWS::SecretsManager::Secret')) {
      const variable = byVariable.get(id) as StackSecret | undefined;
      const value = (variable && o.secretValues?.[variable]) ?? randomUUID().replace(/-/g, '');
      this.secrets.seed(r.resources[id]?.Arn as string, value);
    }
    for (const [id, t] of res.filter(([, t]) => t.Type === 'AWS::Lambda::EventSourceMapping')) {
      const p = t.Properties as Record<string, unknown>;
      const fnRef = (p.FunctionName as { Ref: string }).Ref;
      const queueId = (p.EventSourceArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      this.mappings.push({
        id,
        role: roleOf(this.template, fnRef) as Role,
        queueUrl: r.resources[queueId]?.QueueUrl as string,
        queueArn: r.resources[queueId]?.Arn as string,
        batchSize: Number(p.BatchSize ?? 10),
        windowMs: Number(p.MaximumBatchingWindowInSeconds ?? 0) * 1000,
        reportsFailures: ((p.FunctionResponseTypes as string[] | undefined) ?? []).includes('ReportBatchItemFailures'),
      });
    }
  }

  private async startFunctions(): Promise<void> {
    const endpoint = this.proxy.url;
    for (const fnId of lambdaFunctions(this.template)) {
      const role = roleOf(this.template, fnId);
      if (!role) continue;
      const p = this.template.Resources[fnId]?.Properties as Record<string, unknown>;
      const env: Record<string, string> = {
        ...this.localised(functionEnvironment(this.template, fnId, this.resolver)),
        AWS_REGION: region,
        AWS_DEFAULT_REGION: region,
        AWS_LAMBDA_FUNCTION_NAME: String(p.FunctionName),
        AWS_ACCESS_KEY_ID: this.roleKeys.get(role) as string,
        AWS_SECRET_ACCESS_KEY: 'aws-mode-suite',
        AWS_ENDPOINT_URL_DYNAMODB: endpoint,
        AWS_ENDPOINT_URL_SQS: endpoint,
        AWS_ENDPOINT_URL_S3: endpoint,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
        AWS_ENDPOINT_URL_KMS: endpoint,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        AWS_EC2_METADATA_DISABLED: 'true',
        PATH: process.env.PATH ?? '',
      };
      // Source maps are the bundle's; the handler here runs from source.
      delete env.NODE_OPTIONS;
      const worker = new LambdaWorker(role, String(p.FunctionName), env, Number(p.Timeout ?? 3) * 1000);
      this.functions.set(role, worker);
    }
    await Promise.all([...this.functions.values()].map((w) => w.start()));
  }

  /** The template's environment with this world's settings in place of the synthesized stand-ins. */
  private localised(env: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) {
      let value = v;
      for (const [name, actual] of Object.entries(this.settings)) value = value.split(placeholders[name as Placeholder]).join(actual);
      out[k] = value;
    }
    return out;
  }

  fn(role: Role): LambdaWorker {
    const w = this.functions.get(role);
    if (!w) throw new Error(`no function ${role} in the template`);
    return w;
  }

  /** Lambda replaces the role's warm container with a new one: its module caches and SDK clients start empty. */
  async coldStart(role: Role): Promise<void> {
    const old = this.fn(role);
    await old.close();
    const fresh = new LambdaWorker(old.role, old.functionName, old.env, old.timeoutMs);
    this.functions.set(role, fresh);
    await fresh.start();
  }

  /** The environment the template gives a function (resolved), as its handler sees it. */
  envOf(role: Role): Record<string, string> {
    return this.fn(role).env;
  }

  // ---- HTTP API (API Gateway v2, payload format 2.0) ----

  private startFrontDoor(server: Server, url: string): void {
    const r = this.template.Resources;
    for (const [, t] of Object.entries(r).filter(([, t]) => t.Type === 'AWS::ApiGatewayV2::Route')) {
      const p = t.Properties as { RouteKey: string; Target: unknown };
      const integrationId = JSON.stringify(p.Target).match(/"Ref":"([^"]+)"/)?.[1] as string;
      const integration = r[integrationId];
      if (!integration) throw new Error(`route ${p.RouteKey}: no integration ${integrationId}`);
      const uri = (integration.Properties as { IntegrationUri: { 'Fn::GetAtt': [string, string] } }).IntegrationUri;
      const role = roleOf(this.template, uri['Fn::GetAtt'][0]) as Role;
      const [method, path] = p.RouteKey.split(' ') as [string, string];
      const names: string[] = [];
      const re = new RegExp(
        `^${path.replace(/\{([^}+]+)(\+?)\}/g, (_m, name: string, greedy: string) => {
          names.push(name);
          return greedy ? '(.+)' : '([^/]+)';
        })}$`,
      );
      this.routes.push({ method, re, names, routeKey: p.RouteKey, role });
    }
    // Literal routes win over parameterised ones, as API Gateway picks the most specific.
    this.routes.sort((a, b) => a.names.length - b.names.length);
    this.frontDoor = server;
    server.on('request', (req, res) => void this.serve(req, res));
    this.url = url;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://front-door');
    const route = this.routes.find((x) => x.method === req.method && x.re.test(url.pathname));
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
      return;
    }
    const m = route.re.exec(url.pathname) as RegExpExecArray;
    const pathParameters = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1] as string)]));
    const headers: Record<string, string> = {};
    const cookies: string[] = [];
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined) continue;
      if (k === 'cookie') cookies.push(...String(v).split(/;\s*/));
      else headers[k] = Array.isArray(v) ? v.join(',') : v;
    }
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
    const textual = /^(text\/|application\/(json|x-www-form-urlencoded|xml))/.test(headers['content-type'] ?? '');
    const now = Date.now();
    const event = {
      version: '2.0',
      routeKey: route.routeKey,
      rawPath: url.pathname,
      rawQueryString: url.search.replace(/^\?/, ''),
      ...(cookies.length ? { cookies } : {}),
      headers,
      ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
      requestContext: {
        accountId,
        apiId: 'awsmode',
        domainName: new URL(this.url).host,
        domainPrefix: 'awsmode',
        http: {
          method: req.method,
          path: url.pathname,
          protocol: 'HTTP/1.1',
          sourceIp: '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId: randomUUID(),
        routeKey: route.routeKey,
        stage: '$default',
        time: new Date(now).toUTCString(),
        timeEpoch: now,
      },
      ...(route.names.length ? { pathParameters } : {}),
      ...(body.length
        ? { body: textual ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !textual }
        : { isBase64Encoded: false }),
    };
    const out = await this.fn(route.role).invoke(event);
    if (!out.ok) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal Server Error' }));
      return;
    }
    const result = out.result as {
      statusCode?: number;
      headers?: Record<string, string>;
      body?: string;
      isBase64Encoded?: boolean;
      cookies?: string[];
    };
    if (typeof result !== 'object' || result === null || result.statusCode === undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(typeof result === 'string' ? result : JSON.stringify(result));
      return;
    }
    const outHeaders: Record<string, string | string[]> = { ...(result.headers ?? {}) };
    if (result.cookies?.length) outHeaders['set-cookie'] = result.cookies;
    res.writeHead(result.statusCode, outHeaders);
    res.end(result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
  }

  // ---- Schedules (EventBridge) ----

  /** One tick of a schedule: the scheduled event EventBridge sends its target. */
  async tick(role: 'poller' | 'redelivery-sweep'): Promise<InvokeOutcome> {
    const rule = Object.entries(this.template.Resources).find(
      ([, t]) => t.Type === 'AWS::Events::Rule' && JSON.stringify(t.Properties).includes(`"${this.fnId(role)}"`),
    );
    if (!rule) throw new Error(`no schedule targets ${role}`);
    return this.fn(role).invoke({
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: accountId,
      time: new Date().toISOString(),
      region,
      resources: [`arn:aws:events:${region}:${accountId}:rule/${String(rule[1].Properties?.Name)}`],
      detail: {},
    });
  }

  private fnId(role: Role): string {
    return lambdaFunctions(this.template).find((id) => roleOf(this.template, id) === role) as string;
  }

  // ---- SQS event source mappings ----

  /**
   * Lambda's SQS poller for each mapping, run until its queues hold nothing visible: batches
   * of the mapping's size gathered within its window, received, deleted and (on failure)
   * left to the queue with the function's role, as the event source mapping does; the
   * failures it reports (`batchItemFailures`) stay, the rest are deleted. `skipWaits`: the
   * queue's clock is moved on past a failed message's visibility timeout (its backoff), so a
   * retry comes in this drain rather than seconds or minutes later; the queue still counts the
   * receive and redrives to the dead-letter queue after `maxReceiveCount`. A retry sent as a
   * delayed copy is made visible likewise (`skipDelays`).
   */
  async drainQueues(o: { skipWaits?: boolean; maxRounds?: number } = {}): Promise<{ batches: number; failures: number }> {
    let batches = 0;
    let failures = 0;
    for (let round = 0; round < (o.maxRounds ?? 30); round++) {
      let worked = false;
      if (o.skipWaits) this.skipDelays();
      for (const m of this.mappings) {
        const messages = await this.gather(m);
        if (messages.length === 0) continue;
        worked = true;
        batches++;
        const failed = await this.deliver(m, messages);
        failures += failed.length;
        if (o.skipWaits) {
          for (const f of failed)
            await this.admin.sqs
              .send(new ChangeMessageVisibilityCommand({ QueueUrl: m.queueUrl, ReceiptHandle: f.ReceiptHandle, VisibilityTimeout: 0 }))
              .catch(() => undefined);
        }
      }
      if (!worked) return { batches, failures };
    }
    return { batches, failures };
  }

  private async gather(m: Mapping): Promise<Message[]> {
    const client = this.sqsAs(m.role);
    const out: Message[] = [];
    const until = Date.now() + Math.min(m.windowMs, 200);
    while (out.length < m.batchSize) {
      const got = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: m.queueUrl,
          MaxNumberOfMessages: Math.min(10, m.batchSize - out.length),
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      );
      out.push(...(got.Messages ?? []));
      if (!got.Messages?.length && (out.length === 0 || Date.now() >= until)) break;
    }
    return out;
  }

  private async deliver(m: Mapping, messages: Message[]): Promise<Message[]> {
    const event = {
      Records: messages.map((msg) => ({
        messageId: msg.MessageId,
        receiptHandle: msg.ReceiptHandle,
        body: msg.Body,
        attributes: msg.Attributes ?? {},
        messageAttributes: lambdaMessageAttributes(msg.MessageAttributes),
        md5OfBody: msg.MD5OfBody,
        eventSource: 'aws:sqs',
        eventSourceARN: m.queueArn,
        awsRegion: region,
      })),
    };
    const out = await this.fn(m.role).invoke(event);
    const client = this.sqsAs(m.role);
    // A function error fails the whole batch; otherwise only the items it reports.
    const failedIds = !out.ok
      ? new Set(messages.map((x) => x.MessageId))
      : m.reportsFailures
        ? new Set(
            ((out.result as { batchItemFailures?: { itemIdentifier: string }[] } | null)?.batchItemFailures ?? []).map(
              (f) => f.itemIdentifier,
            ),
          )
        : new Set<string>();
    const done = messages.filter((x) => !failedIds.has(x.MessageId as string));
    const { DeleteMessageBatchCommand } = await import('@aws-sdk/client-sqs');
    for (let i = 0; i < done.length; i += 10) {
      const chunk = done.slice(i, i + 10);
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: m.queueUrl,
          Entries: chunk.map((x, j) => ({ Id: String(j), ReceiptHandle: x.ReceiptHandle })),
        }),
      );
    }
    return messages.filter((x) => failedIds.has(x.MessageId as string));
  }

  private readonly sqsClients = new Map<Role, SQSClient>();
  /** The event source mapping polls with the function's execution role, so its calls are judged against that role too. */
  private sqsAs(role: Role): SQSClient {
    let c = this.sqsClients.get(role);
    if (!c) {
      c = new SQSClient({
        region,
        endpoint: this.proxy.url,
        credentials: { accessKeyId: this.roleKeys.get(role) as string, secretAccessKey: 'x' },
      });
      this.sqsClients.set(role, c);
    }
    return c;
  }

  /** Messages in a queue (visible, in flight, delayed), read without the function's role. */
  /**
   * The queues' clock moved past every delayed message's delay: fauxqs keeps a delayed message
   * aside until its `delayUntil`, which it checks on each receive.
   */
  skipDelays(): void {
    for (const part of ['DispatchQueue', 'SlowQueue'] as const) {
      const name = this.queueUrl(part).split('/').at(-1) ?? '';
      for (const msg of this.fauxqs.inspectQueue(name)?.messages.delayed ?? []) msg.delayUntil = Date.now();
    }
  }

  /** Messages received and not yet visible again (`ApproximateNumberOfMessagesNotVisible`): what counts against SQS's in-flight limit. */
  async inFlight(logicalIdPart: 'DispatchQueue' | 'SlowQueue'): Promise<number> {
    const got = await this.admin.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: this.queueUrl(logicalIdPart), AttributeNames: ['ApproximateNumberOfMessagesNotVisible'] }),
    );
    return Number(got.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  }

  async queueDepth(logicalIdPart: 'DispatchQueue' | 'SlowQueue' | 'DeadLetterQueue'): Promise<number> {
    const url = this.queueUrl(logicalIdPart);
    const got = await this.admin.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    const a = got.Attributes ?? {};
    return (
      Number(a.ApproximateNumberOfMessages ?? 0) +
      Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
      Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
    );
  }

  queueUrl(logicalIdPart: string): string {
    const id = Object.keys(this.template.Resources).find((k) => k.startsWith(`Data${logicalIdPart}`));
    return this.resolver.resources[id as string]?.QueueUrl as string;
  }

  // ---- What the functions did ----

  /** The AWS calls the proxy saw since `mark` (an index into `calls`), by role. */
  get calls(): AwsCall[] {
    return this.proxy.calls;
  }

  /** `role action` of every call since `from`, e.g. `webhook-intake sqs:SendMessage`. */
  actionsSince(from: number, role?: Role): string[] {
    const key = role ? this.roleKeys.get(role) : undefined;
    return this.proxy.calls
      .slice(from)
      .filter((c) => key === undefined || c.role === key)
      .flatMap((c) => c.checks.map((k) => `${this.roleName(c.role)} ${k.action}`));
  }

  /** The role's folder name from its access key id (the role's logical id). */
  roleName(key: string): string {
    for (const [role, k] of this.roleKeys) if (k === key) return role;
    return key;
  }

  /** Refused calls, each naming the role, the action and the resource. */
  denials(): string[] {
    return this.proxy.denials().map((c) => `${this.roleName(c.role)}: ${c.reason}`);
  }

  async close(): Promise<void> {
    await Promise.all([...this.functions.values()].map((w) => w.close()));
    this.frontDoor?.closeAllConnections();
    await new Promise<void>((resolve) => (this.frontDoor ? this.frontDoor.close(() => resolve()) : resolve()));
    await this.proxy.close();
    await this.secrets.close();
    await this.kms.close();
    await this.fauxqs.stop();
    await this.dynamo.close();
  }
}

/** The role of a function from its name (`agent-integrations-<stage>-<role>`). */
function roleOf(template: CfnTemplate, fnId: string): Role | undefined {
  const name = template.Resources[fnId]?.Properties?.FunctionName;
  const m =
    typeof name === 'string'
      ? /^agent-integrations-[a-z0-9-]+?-(webhook-intake|dispatch|poller|redelivery-sweep|tool-step|oauth|platform-api)$/.exec(name)
      : null;
  return m?.[1] as Role | undefined;
}
