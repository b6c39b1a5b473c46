import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { maxReceiveCount } from '../../shared/dispatch/redrive-policy';
import { eventListingFields } from '../../shared/store/event-listing-fields';
import { tableAccessByRole } from '../../shared/store/table-access';
import { type Synthesized, synthStack } from './synth-stack';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: Record<string, Record<string, unknown>> };

let s: Synthesized;
/** A second stage, with the options the first leaves out: custom URL, no alarm e-mail, data deleted with it. */
let alt: Synthesized;
let resources: Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const fnId = (name: string) => {
  const hit = ofType('AWS::Lambda::Function').find(([, r]) => r.Properties.FunctionName === `agent-integrations-test-${name}`);
  if (!hit) throw new Error(`no function ${name}`);
  return hit[0];
};
/** The statements of the policies attached to a function's role. */
const statementsOf = (name: string): Statement[] => {
  const roleId = resources[fnId(name)]!.Properties.Role['Fn::GetAtt'][0];
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
    .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
};
const actions = (st: Statement[]) => st.flatMap((x) => (Array.isArray(x.Action) ? x.Action : [x.Action]));
const allStatements = () => ofType('AWS::IAM::Policy').flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
/** The KMS key of the installation tokens (the alarm topic has a key of its own). */
const tokenKeyId = () => {
  const hit = ofType('AWS::KMS::Key').find(([, r]) => String(r.Properties.Description).includes('installation tokens'));
  if (!hit) throw new Error('no installation token key');
  return hit[0];
};
const functionNames = ['webhook-intake', 'dispatch', 'poller', 'redelivery-sweep', 'tool-step', 'oauth', 'platform-api'];
/** The planners' work queues and their dead letters (the poller's and the sweep's), apart from dispatch's. */
const isWorkQueue = (id: string) => /^(Poll|Sweep)Work/.test(id);

beforeAll(() => {
  s = synthStack({
    stage: 'test',
    alarmEmail: 'ops@example.com',
    githubClientId: 'Iv1.abc',
    githubAppId: '424242',
    githubAppSlug: 'agent-integrations',
    githubAppClientId: 'Iv23li0123456789',
  });
  resources = s.template.toJSON().Resources;
  alt = synthStack({
    stage: 'qa',
    publicUrl: 'https://hooks.example.com/',
    destroyData: 'true',
    githubAllowedPrivateHosts: 'ghe.corp.example',
  });
}, 240_000);

describe('functions', () => {
  it('has one nodejs24.x function per role, each with its own log group and tracing', () => {
    const fns = ofType('AWS::Lambda::Function');
    expect(fns.map(([, r]) => r.Properties.FunctionName).sort()).toEqual(functionNames.map((n) => `agent-integrations-test-${n}`).sort());
    for (const [, r] of fns) {
      expect(r.Properties.Runtime).toBe('nodejs24.x');
      expect(r.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(r.Properties.LoggingConfig.LogGroup).toBeDefined();
    }
  });

  it('consumes both dispatch lanes in batches of up to 50, both reporting partial batch failures, at most 2 executions each by default', () => {
    const queues = Object.fromEntries(
      ofType('AWS::SQS::Queue')
        .filter(([id, q]) => q.Properties.RedrivePolicy && !isWorkQueue(id))
        .map(([id, q]) => [id, JSON.stringify(q.Properties.QueueName).includes('dispatch-slow') ? 'slow' : 'main']),
    );
    const sources = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, r]) => r.Properties)
      .filter((p) => p.FunctionName.Ref === fnId('dispatch'));
    expect(sources).toHaveLength(2);
    const byLane = Object.fromEntries(sources.map((p) => [queues[p.EventSourceArn['Fn::GetAtt'][0]], p]));
    expect(Object.keys(byLane).sort()).toEqual(['main', 'slow']);
    for (const p of sources) {
      expect(p.FunctionName).toEqual({ Ref: fnId('dispatch') });
      expect(p.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
      // Over 10 needs a batching window; a short one keeps a quiet queue's latency low.
      expect(p.MaximumBatchingWindowInSeconds).toBe(1);
      expect(p.ScalingConfig).toEqual({ MaximumConcurrency: 2 });
    }
    expect(byLane.main.BatchSize).toBe(50);
    expect(byLane.slow.BatchSize).toBe(50);
    // The function knows which queue is the slow lane, and may move events there.
    const env = resources[fnId('dispatch')]!.Properties.Environment.Variables;
    const slowId = Object.keys(queues).find((id) => queues[id] === 'slow')!;
    expect(env.SLOW_QUEUE_URL).toEqual({ Ref: slowId });
    const sends = statementsOf('dispatch').filter((st) => actions([st]).includes('sqs:SendMessage'));
    expect(sends.map((st) => JSON.stringify(st.Resource)).join()).toContain(slowId);
    // Retries wait as delayed copies, so an event out of tries is sent to the dead-letter queue by the function.
    const dlqId = ofType('AWS::SQS::Queue').find(([, q]) => q.Properties.RedriveAllowPolicy)?.[0];
    expect(env.DEAD_LETTER_QUEUE_URL).toEqual({ Ref: dlqId });
    expect(sends.map((st) => JSON.stringify(st.Resource)).join()).toContain(dlqId);
  });

  it('runs the poller every minute and the redelivery sweep every five', () => {
    const rules = ofType('AWS::Events::Rule').map(([, r]) => [
      r.Properties.ScheduleExpression,
      r.Properties.Targets[0].Arn['Fn::GetAtt'][0],
    ]);
    expect(rules).toContainEqual(['rate(1 minute)', fnId('poller')]);
    expect(rules).toContainEqual(['rate(5 minutes)', fnId('redelivery-sweep')]);
  });

  it('puts every contract route behind the one HTTP API, on the function that serves it', () => {
    const routes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    expect(routes.sort()).toEqual(
      [
        'POST /webhooks/github/{endpointId}',
        'POST /webhooks/github/app',
        'POST /webhooks/contentsnare/{connectionId}/{token}',
        'POST /oauth/{provider}/authorize',
        'GET /oauth/{provider}/callback',
        'GET /oauth/{provider}/start',
        'POST /oauth/github-app/authorize',
        'GET /oauth/github-app/callback',
        'GET /oauth/github-app/start',
        'POST /github-app/manifest',
        'GET /github-app/manifest/start',
        'GET /github-app/manifest/callback',
        'POST /connect/sessions',
        'GET /connect/{token}',
        'POST /connect/{token}',
        'GET /healthz',
        'GET /connections',
        'POST /connections',
        'GET /connections/{id}',
        'PATCH /connections/{id}',
        'DELETE /connections/{id}',
        'GET /subscriptions',
        'POST /subscriptions',
        'GET /subscriptions/{id}',
        'DELETE /subscriptions/{id}',
        'GET /triggers',
        'GET /tools',
        'POST /tools/{toolId}/invoke',
        'GET /keys',
        'POST /keys',
        'DELETE /keys/{id}',
        'GET /openapi.json',
        'GET /events',
        'GET /events/{id}',
        'POST /events/{id}/replay',
        ...['GET', 'POST', 'DELETE'].flatMap((m) => [`${m} /mcp`, `${m} /mcp/{connectionId}`]),
        'POST /mcp/x/{toolset}',
        'POST /mcp/{connectionId}/x/{toolset}',
      ].sort(),
    );
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationUri: { 'Fn::GetAtt': [fnId('webhook-intake'), 'Arn'] },
      PayloadFormatVersion: '2.0',
    });
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('builds webhook and callback URLs on the API endpoint unless a public URL is given', () => {
    const env = (name: string) => resources[fnId(name)]!.Properties.Environment.Variables;
    expect(env('platform-api').PUBLIC_URL['Fn::GetAtt'][1]).toBe('ApiEndpoint');
    expect(env('oauth').PUBLIC_URL['Fn::GetAtt'][1]).toBe('ApiEndpoint');
    const custom = alt.template.toJSON().Resources as Record<string, Resource>;
    const urls = Object.values(custom)
      .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.PUBLIC_URL)
      .map((r) => r.Properties.Environment.Variables.PUBLIC_URL);
    expect(urls).toEqual(['https://hooks.example.com', 'https://hooks.example.com']);
  });

  it('opens private addresses only for the enterprise hosts the operator lists, in every function that calls the code host', () => {
    const callers = ['poller', 'redelivery-sweep', 'tool-step', 'oauth', 'platform-api'];
    const custom = Object.values(alt.template.toJSON().Resources as Record<string, Resource>).filter(
      (r) => r.Type === 'AWS::Lambda::Function',
    );
    for (const name of callers) {
      const fn = custom.find((r) => r.Properties.FunctionName === `agent-integrations-qa-${name}`);
      expect(fn?.Properties.Environment.Variables.GITHUB_ALLOWED_PRIVATE_HOSTS, name).toBe('ghe.corp.example');
    }
    for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment?.Variables?.GITHUB_ALLOWED_PRIVATE_HOSTS).toBeUndefined();
    }
  });
});

describe('data', () => {
  it('keeps the table on demand, with point-in-time recovery, TTL on `ttl`, its three GSIs, and retained', () => {
    s.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        GlobalSecondaryIndexes: [
          Match.objectLike({
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
          }),
          Match.objectLike({
            IndexName: 'gsi2',
            KeySchema: [
              { AttributeName: 'gsi2pk', KeyType: 'HASH' },
              { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
            ],
          }),
          // The shards of all events: only the fields an event is queued with, so a rewrite writes nothing here.
          Match.objectLike({
            IndexName: 'gsi3',
            KeySchema: [
              { AttributeName: 'gsi3pk', KeyType: 'HASH' },
              { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...eventListingFields] },
          }),
        ],
      }),
    });
  });

  it('dead-letters both dispatch lanes into one queue after the receives the dispatch code counts as last (at least 5), keeps dead letters 14 days, and hides messages 6x the dispatch timeout', () => {
    // The work queues have their own dead letters (their own test).
    const queues = ofType('AWS::SQS::Queue').filter(([id]) => !isWorkQueue(id));
    const lanes = queues.filter(([, q]) => q.Properties.RedrivePolicy).map(([, q]) => q);
    const dlqs = queues.filter(([, q]) => !q.Properties.RedrivePolicy);
    expect(lanes).toHaveLength(2);
    expect(dlqs).toHaveLength(1);
    const dlq = dlqs[0]!;
    expect(maxReceiveCount).toBeGreaterThanOrEqual(5);
    const dispatchTimeout = resources[fnId('dispatch')]!.Properties.Timeout as number;
    for (const lane of lanes) {
      expect(lane.Properties.RedrivePolicy.maxReceiveCount).toBe(maxReceiveCount);
      expect(lane.Properties.RedrivePolicy.deadLetterTargetArn).toEqual({ 'Fn::GetAtt': [dlq[0], 'Arn'] });
      expect(lane.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * dispatchTimeout);
    }
    expect(dlq[1].Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    for (const [, q] of queues) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
  });

  it('refuses non-TLS requests on both queues and the bucket', () => {
    const deniesPlainHttp = (doc: { Statement: Array<{ Effect: string; Condition?: any }> }) =>
      doc.Statement.some((st) => st.Effect === 'Deny' && st.Condition?.Bool?.['aws:SecureTransport'] === 'false');
    const covered = ofType('AWS::SQS::QueuePolicy')
      .filter(([, p]) => deniesPlainHttp(p.Properties.PolicyDocument))
      .flatMap(([, p]) => p.Properties.Queues.map((q: { Ref: string }) => q.Ref));
    expect(covered.sort()).toEqual(
      ofType('AWS::SQS::Queue')
        .map(([id]) => id)
        .sort(),
    );
    const buckets = ofType('AWS::S3::BucketPolicy');
    expect(buckets).toHaveLength(1);
    expect(deniesPlainHttp(buckets[0]![1].Properties.PolicyDocument)).toBe(true);
  });

  it('keeps claim-check payloads private, encrypted, expiring, and retained', () => {
    s.template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'RetainExceptOnCreate',
      Properties: Match.objectLike({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ ExpirationInDays: 15, Status: 'Enabled' })]) },
      }),
    });
  });

  it('deletes data with the stack only when a non-prod stage asks for it', () => {
    alt.template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete' });
    alt.template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete' });
    expect(() => synthStack({ stage: 'prod', destroyData: 'true' })).toThrow(/prod/);
  });
});

describe('secrets', () => {
  it("gives the functions that act with GitHub App tokens the App's ids, its key and client secret by ARN, and the token key, no secret area", () => {
    const appUsers = ['dispatch', 'poller', 'redelivery-sweep', 'tool-step', 'oauth', 'platform-api'];
    for (const name of appUsers) {
      const env = resources[fnId(name)]!.Properties.Environment.Variables as Record<string, unknown>;
      expect(env, name).toMatchObject({
        GITHUB_APP_ID: '424242',
        GITHUB_APP_SLUG: 'agent-integrations',
        GITHUB_APP_CLIENT_ID: 'Iv23li0123456789',
      });
      expect(env.GITHUB_APP_PRIVATE_KEY_SECRET_ARN, name).toEqual({ Ref: expect.stringMatching(/GithubAppPrivateKey/) });
      expect(env.GITHUB_APP_CLIENT_SECRET_ARN, name).toEqual({ Ref: expect.stringMatching(/GithubAppClientSecret/) });
      expect(env.GITHUB_APP_PRIVATE_KEY, name).toBeUndefined();
      expect(env.KMS_KEY_ARN, name).toEqual({ 'Fn::GetAtt': [tokenKeyId(), 'Arn'] });
      // The installation tokens left Secrets Manager for the table: no function may make a secret per installation.
      expect(JSON.stringify(statementsOf(name)), name).not.toMatch(/app-installations/);
    }
    // The intake acts with no token: it is given neither the key nor the installation tokens.
    const intake = resources[fnId('webhook-intake')]!.Properties.Environment.Variables as Record<string, unknown>;
    expect(intake.GITHUB_APP_PRIVATE_KEY_SECRET_ARN).toBeUndefined();
    expect(intake.KMS_KEY_ARN).toBeUndefined();
    expect(JSON.stringify(statementsOf('webhook-intake'))).not.toMatch(/app-installations|kms:/);
  });

  it('gives functions secret ARNs, never secret values', () => {
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      for (const [name, value] of Object.entries(fn.Properties.Environment.Variables as Record<string, unknown>)) {
        if (!/SECRET|API_KEY|TOKEN|PASSWORD/.test(name) || name === 'SECRET_PREFIX' || name === 'SECRET_LEGACY_TOKEN_NAMES') continue;
        expect(name).toMatch(/_SECRET_ARN$/);
        const ref = (value as { Ref?: string }).Ref;
        expect(resources[ref!]?.Type).toBe('AWS::SecretsManager::Secret');
      }
    }
    // Generated or set by operators after deploy: no value is ever written into the template.
    for (const [, secret] of ofType('AWS::SecretsManager::Secret')) {
      expect(secret.Properties.SecretString).toBeUndefined();
      expect(secret.Properties.GenerateSecretString).toBeDefined();
      expect(secret.Properties.Description).toMatch(/^agent-integrations test: /);
    }
  });

  it('scopes Secrets Manager permissions to one stack secret or to a name prefix of the stage', () => {
    const secretStatements = allStatements().filter((st) => actions([st]).some((a) => a.startsWith('secretsmanager:')));
    expect(secretStatements.length).toBeGreaterThan(0);
    for (const st of secretStatements) {
      const targets = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
      for (const r of targets) {
        const text = JSON.stringify(r);
        const ownSecret =
          typeof (r as { Ref?: string }).Ref === 'string' && resources[(r as { Ref: string }).Ref]?.Type === 'AWS::SecretsManager::Secret';
        const prefixed = /:secret:agent-integrations\/test\/(connections|contentsnare-connections|endpoints)\/\*"/.test(text);
        expect(ownSecret || prefixed, text).toBe(true);
      }
    }
  });

  it("gives the webhook intake the GitHub App's webhook secret by ARN, so the App's signed deliveries can be checked", () => {
    const env = resources[fnId('webhook-intake')]!.Properties.Environment.Variables as Record<string, unknown>;
    expect(env.GITHUB_APP_WEBHOOK_SECRET_ARN).toEqual({ Ref: expect.stringMatching(/GithubAppWebhookSecret/) });
    const reads = statementsOf('webhook-intake').filter((st) => actions([st]).includes('secretsmanager:GetSecretValue'));
    expect(JSON.stringify(reads)).toContain(JSON.stringify(env.GITHUB_APP_WEBHOOK_SECRET_ARN));
  });

  it('grants the webhook intake no connection token of either provider and no code-host credential', () => {
    const text = JSON.stringify(statementsOf('webhook-intake'));
    expect(text).not.toMatch(/:secret:agent-integrations\/test\/(connections|contentsnare-connections|app-installations)\//);
    const env = resources[fnId('webhook-intake')]!.Properties.Environment.Variables as Record<string, unknown>;
    for (const key of [
      'GITHUB_APP_PRIVATE_KEY_SECRET_ARN',
      'GITHUB_APP_CLIENT_SECRET_ARN',
      'GITHUB_CLIENT_SECRET_ARN',
      'CONTENTSNARE_CLIENT_SECRET_ARN',
    ])
      expect(env[key], key).toBeUndefined();
    // It cannot read the old names (in the code host's area): the other functions move them.
    expect(env.SECRET_LEGACY_TOKEN_NAMES).toBe('off');
    for (const name of ['dispatch', 'poller', 'tool-step', 'platform-api']) {
      const granted = JSON.stringify(statementsOf(name));
      expect(granted, name).toMatch(/:secret:agent-integrations\/test\/connections\/\*"/);
      expect(granted, name).toMatch(/:secret:agent-integrations\/test\/contentsnare-connections\/\*"/);
    }
  });

  it("lets only the OAuth function write the GitHub App's three secrets and its identity (the manifest flow keeps the App it makes there), with PutSecretValue alone", () => {
    const appSecrets = ['GithubAppPrivateKey', 'GithubAppClientSecret', 'GithubAppWebhookSecret', 'GithubAppIdentity'];
    const writesTo = (name: string) =>
      statementsOf(name)
        .filter((st) => actions([st]).some((a) => a !== 'secretsmanager:GetSecretValue' && a !== 'secretsmanager:DescribeSecret'))
        .flatMap((st) => [st.Resource].flat().map((r) => JSON.stringify(r)))
        .filter((r) => appSecrets.some((id) => r.includes(id)));
    expect(functionNames.filter((n) => writesTo(n).length > 0)).toEqual(['oauth']);
    const env = resources[fnId('oauth')]!.Properties.Environment.Variables as Record<string, unknown>;
    for (const id of appSecrets) {
      const key = Object.keys(env).find((k) => JSON.stringify(env[k]).includes(id));
      expect(key, id).toBeDefined();
      const onSecret = statementsOf('oauth').filter((st) =>
        [st.Resource].flat().some((r) => JSON.stringify(r) === JSON.stringify(env[key!])),
      );
      expect(actions(onSecret).sort(), id).toEqual([
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
        'secretsmanager:PutSecretValue',
      ]);
    }
  });

  it("lets every function that reads the GitHub App read its identity secret by ARN, the intake only it and the webhook secret of the App's secrets", () => {
    const readersOf = (secretId: string) =>
      functionNames.filter((name) => {
        const env = resources[fnId(name)]!.Properties.Environment.Variables as Record<string, unknown>;
        const ref = Object.values(env).find((v) => JSON.stringify(v).includes(secretId));
        const reads = statementsOf(name).filter((st) => actions([st]).includes('secretsmanager:GetSecretValue'));
        return ref !== undefined && JSON.stringify(reads).includes(JSON.stringify(ref));
      });
    const identityReaders = readersOf('GithubAppIdentity');
    expect(identityReaders.sort()).toEqual([...functionNames].sort());
    for (const name of functionNames) {
      const env = resources[fnId(name)]!.Properties.Environment.Variables as Record<string, unknown>;
      expect(env.GITHUB_APP_IDENTITY_SECRET_ARN, name).toEqual({ Ref: expect.stringMatching(/GithubAppIdentity/) });
    }
    const intakeReads = ['GithubAppPrivateKey', 'GithubAppClientSecret', 'GithubAppWebhookSecret', 'GithubAppIdentity'].filter((id) =>
      readersOf(id).includes('webhook-intake'),
    );
    expect(intakeReads).toEqual(['GithubAppWebhookSecret', 'GithubAppIdentity']);
    const outputs = s.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(JSON.stringify(outputs.GithubAppIdentitySecretArn?.Value)).toMatch(/GithubAppIdentity/);
  });

  it('lets only the platform API delete stored secrets, and only the intake read webhook secrets besides it', () => {
    const deleters = functionNames.filter((n) => actions(statementsOf(n)).includes('secretsmanager:DeleteSecret'));
    expect(deleters).toEqual(['platform-api']);
    const endpointReaders = functionNames.filter((n) => JSON.stringify(statementsOf(n)).includes('/endpoints/*'));
    expect(endpointReaders.sort()).toEqual(['platform-api', 'webhook-intake']);
  });
});

describe("the installation tokens' key", () => {
  it('is one symmetric KMS key, rotated, kept and deleted as the table is', () => {
    const key = resources[tokenKeyId()]!;
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
    expect(key.DeletionPolicy).toBe(table.DeletionPolicy);
    const altKey = Object.values(alt.template.toJSON().Resources as Record<string, Resource>).find(
      (r) => r.Type === 'AWS::KMS::Key' && String(r.Properties.Description).includes('installation tokens'),
    );
    expect(altKey?.DeletionPolicy).toBe('Delete');
  });

  it('lets only the functions that mint or read installation tokens Encrypt and Decrypt with it, and nothing more', () => {
    const onKey = (name: string) =>
      statementsOf(name).filter((st) => JSON.stringify(st.Resource).includes(JSON.stringify({ 'Fn::GetAtt': [tokenKeyId(), 'Arn'] })));
    const users = functionNames.filter((n) => onKey(n).length > 0);
    expect(users.sort()).toEqual(['dispatch', 'oauth', 'platform-api', 'poller', 'redelivery-sweep', 'tool-step']);
    for (const name of users) expect(actions(onKey(name)).sort(), name).toEqual(['kms:Decrypt', 'kms:Encrypt']);
    // No KMS action on any other resource, and no data key is ever asked for.
    for (const st of allStatements().filter((x) => actions([x]).some((a) => a.startsWith('kms:')))) {
      expect(st.Resource).toEqual({ 'Fn::GetAtt': [tokenKeyId(), 'Arn'] });
      expect(actions([st])).not.toContain('kms:GenerateDataKey');
    }
  });
});

describe('least privilege', () => {
  it('never grants Scan, service wildcards or "*" resources beyond X-Ray', () => {
    for (const st of allStatements()) {
      const acts = actions([st]);
      expect(acts).not.toContain('dynamodb:Scan');
      for (const a of acts) expect(a).not.toMatch(/:\*$|^\*$/);
      if (st.Resource === '*') expect(acts.every((a) => a.startsWith('xray:'))).toBe(true);
    }
  });

  it("limits every role's table statements to its leading keys (shared/store/table-access.ts): the table's patterns on the table, an index's on that index, no undeclared index", () => {
    const leading = (patterns: readonly string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...patterns] } });
    /** `table`, `gsi1`, `gsi2` or `gsi3`: what one resource of a statement names. */
    const partOf = (r: unknown) => /\/index\/(gsi[123])"/.exec(JSON.stringify(r))?.[1] ?? 'table';
    for (const name of functionNames) {
      const declared = tableAccessByRole[name];
      expect(declared, `${name} has no declared table access`).toBeDefined();
      const dynamo = statementsOf(name).filter((st) => actions([st]).some((a) => a.startsWith('dynamodb:')));
      expect(dynamo.length, name).toBeGreaterThan(0);
      const granted = new Set<string>();
      for (const st of dynamo) {
        const parts = [...new Set((Array.isArray(st.Resource) ? st.Resource : [st.Resource]).map(partOf))];
        expect(parts, `${name}: one statement, one part of the table`).toHaveLength(1);
        const part = parts[0] as 'table' | 'gsi1' | 'gsi2' | 'gsi3';
        granted.add(part);
        const patterns = declared?.[part];
        expect(patterns, `${name} is granted ${part} without declaring it`).toBeDefined();
        expect(st.Condition, `${name} on ${part}`).toEqual(leading(patterns ?? []));
        if (part !== 'table') expect(actions([st]), `${name} on ${part}`).toEqual(['dynamodb:Query']);
      }
      expect([...granted].sort(), name).toEqual(
        (['table', 'gsi1', 'gsi2', 'gsi3'] as const).filter((p) => declared?.[p] !== undefined).sort(),
      );
    }
    expect(Object.keys(tableAccessByRole).sort()).toEqual([...functionNames].sort());
  });

  it("lets every role that mints GitHub App installation tokens (it holds the App's key) write their mint lease and their sealed row", () => {
    const minters = functionNames.filter((n) => {
      const env = resources[fnId(n)]!.Properties.Environment.Variables as Record<string, unknown>;
      return env.GITHUB_APP_PRIVATE_KEY_SECRET_ARN !== undefined;
    });
    expect(minters.sort()).toEqual(['dispatch', 'oauth', 'platform-api', 'poller', 'redelivery-sweep', 'tool-step']);
    for (const name of minters) {
      const tableWrites = statementsOf(name).filter(
        (st) => actions([st]).includes('dynamodb:PutItem') && !JSON.stringify(st.Resource).includes('/index/'),
      );
      const keys = tableWrites.flatMap(
        (st) => (st.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as string[] | undefined) ?? [],
      );
      expect(keys, name).toContain('LEASE#app-token#*');
      expect(keys, name).toContain('APPTOKEN#*');
    }
  });

  it('lets the intake claim deliveries and enqueue, but never receive or delete messages', () => {
    const acts = actions(statementsOf('webhook-intake'));
    expect(acts).toEqual(
      expect.arrayContaining([
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:PutItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:DeleteItem',
        'sqs:SendMessage',
        's3:PutObject',
      ]),
    );
    for (const forbidden of [
      'sqs:DeleteMessage',
      'sqs:ReceiveMessage',
      'sqs:PurgeQueue',
      'dynamodb:Scan',
      's3:GetObject',
      'secretsmanager:CreateSecret',
    ]) {
      expect(acts).not.toContain(forbidden);
    }
  });

  it.each([
    ['poller', 'PollWork', 'POLL_WORK_QUEUE_URL'],
    ['redelivery-sweep', 'SweepWork', 'SWEEP_WORK_QUEUE_URL'],
  ])(
    "plans the %s's rounds onto a work queue of its own (%s) that it alone sends to and takes from, dead-lettered after 3 receives, with age and dead-letter alarms",
    (fn, prefix, variable) => {
      const work = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith(prefix));
      const [queueId, queue] = work.find(([id]) => id.startsWith(`${prefix}Queue`)) ?? [];
      const [dlqId] = work.find(([id]) => id.startsWith(`${prefix}DeadLetters`)) ?? [];
      expect(queueId).toBeDefined();
      expect(queue?.Properties.RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 3 });
      const source = ofType('AWS::Lambda::EventSourceMapping')
        .map(([, r]) => r.Properties)
        .find((p) => p.EventSourceArn['Fn::GetAtt'][0] === queueId);
      expect(source).toMatchObject({
        FunctionName: { Ref: fnId(fn) },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        BatchSize: 10,
        ScalingConfig: { MaximumConcurrency: 20 },
      });
      const env = resources[fnId(fn)]!.Properties.Environment.Variables;
      expect(env[variable]).toEqual({ Ref: queueId });
      // Who may touch the work queue: the function, to send (the planner) and to receive (the worker); no one else.
      const touching = functionNames.filter((n) => JSON.stringify(statementsOf(n)).includes(`"${queueId}"`));
      expect(touching).toEqual([fn]);
      const onWork = statementsOf(fn).filter((st) => JSON.stringify(st.Resource).includes(`"${queueId}"`));
      expect(actions(onWork)).toEqual(expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
      const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
      const on = (queue: string, metric: string) =>
        alarms.find((a) => a.MetricName === metric && JSON.stringify(a.Dimensions).includes(`"${queue}"`));
      expect(on(queueId as string, 'ApproximateAgeOfOldestMessage')).toMatchObject({ Threshold: 120 });
      expect(on(dlqId as string, 'ApproximateNumberOfMessagesVisible')).toMatchObject({ Threshold: 1 });
    },
  );

  it('gives each function only the queue and bucket actions its role needs', () => {
    const has = (n: string, a: string) => actions(statementsOf(n)).includes(a);
    expect(has('dispatch', 'sqs:ChangeMessageVisibility')).toBe(true);
    expect(has('dispatch', 'sqs:DeleteMessage')).toBe(true);
    expect(has('dispatch', 's3:GetObject')).toBe(true);
    expect(has('dispatch', 's3:DeleteObject')).toBe(true);
    // The collection service's read-backs queue events from dispatch, bodies too big for a message stored aside.
    expect(has('dispatch', 's3:PutObject')).toBe(true);
    expect(has('webhook-intake', 's3:DeleteObject')).toBe(false);
    // Dispatch puts throttled events back on the queue with a delay.
    expect(has('dispatch', 'sqs:SendMessage')).toBe(true);
    // The poller enqueues like the intake, bodies too big for a message stored aside.
    expect(has('poller', 'sqs:SendMessage')).toBe(true);
    expect(has('poller', 's3:PutObject')).toBe(true);
    expect(has('poller', 's3:GetObject')).toBe(false);
    expect(has('poller', 's3:DeleteObject')).toBe(false);
    // A replay (POST /events/{id}/replay) sends the stored body again: it reads a claim-check body and may store one; it deletes nothing.
    expect(has('platform-api', 'sqs:SendMessage')).toBe(true);
    expect(has('platform-api', 's3:GetObject')).toBe(true);
    expect(has('platform-api', 's3:PutObject')).toBe(true);
    expect(has('platform-api', 's3:DeleteObject')).toBe(false);
    expect(has('platform-api', 'sqs:ReceiveMessage')).toBe(false);
    for (const n of ['oauth', 'tool-step']) {
      expect(actions(statementsOf(n)).filter((a) => a.startsWith('sqs:') || a.startsWith('s3:'))).toEqual([]);
    }
    // The sweep only asks the code host to redeliver: its queue actions are on its own work queue, never on dispatch's.
    const sweepQueue = ofType('AWS::SQS::Queue').find(([id]) => id.startsWith('SweepWorkQueue'))?.[0];
    const sweepSqs = statementsOf('redelivery-sweep').filter((st) => actions([st]).some((a) => a.startsWith('sqs:')));
    expect(sweepSqs.length).toBeGreaterThan(0);
    for (const st of sweepSqs) expect(JSON.stringify(st.Resource)).toContain(`"${sweepQueue}"`);
    expect(actions(statementsOf('redelivery-sweep')).filter((a) => a.startsWith('s3:'))).toEqual([]);
  });

  it('sets QUEUE_URL and BLOB_BUCKET only where the function is granted the queue or the bucket', () => {
    const env = (n: string): Record<string, unknown> => resources[fnId(n)]!.Properties.Environment?.Variables ?? {};
    const withVar = (v: string) => functionNames.filter((n) => v in env(n)).sort();
    expect(withVar('QUEUE_URL')).toEqual(['dispatch', 'platform-api', 'poller', 'webhook-intake']);
    expect(withVar('BLOB_BUCKET')).toEqual(['dispatch', 'platform-api', 'poller', 'webhook-intake']);
  });

  it('gives every function a role of its own with no AWS managed policy', () => {
    const roles = ofType('AWS::IAM::Role');
    expect(roles).toHaveLength(functionNames.length);
    for (const [, r] of roles) expect(r.Properties.ManagedPolicyArns).toBeUndefined();
  });
});

describe('operations', () => {
  it('alarms on dead letters, on each function error rate, on intake p99 and on sweep failures', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const byName = (suffix: string) => alarms.find((a) => a.AlarmName === `agent-integrations-test-${suffix}`);
    const dlq = byName('dead-letters')!;
    expect(dlq.MetricName).toBe('ApproximateNumberOfMessagesVisible');
    expect(dlq.Threshold).toBe(1);
    expect(dlq.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    expect(dlq.Dimensions[0].Value['Fn::GetAtt'][1]).toBe('QueueName');
    for (const n of functionNames) expect(byName(`${n}-error-rate`)?.Metrics).toBeDefined();
    expect(byName('webhook-intake-p99')!.ExtendedStatistic).toBe('p99');
    expect(byName('redelivery-sweep-failures')!.MetricName).toBe('Errors');
    for (const a of alarms) expect(a.AlarmActions).toHaveLength(1);
  });

  it('alarms on any signed delivery refused for its shape, summed over every event, in this stage', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const rejected = alarms.find((a) => a.AlarmName === 'agent-integrations-test-webhook-rejected-shape')!;
    expect(rejected).toBeDefined();
    expect(rejected.Threshold).toBe(1);
    expect(rejected.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    expect(rejected.AlarmActions).toHaveLength(1);
    const query = String(rejected.Metrics?.[0]?.Expression);
    expect(query).toContain('SUM(DeliveriesRejectedShape)');
    expect(query).toContain('FROM SCHEMA("AgentIntegrations", event, service, stage)');
    expect(query).toContain("WHERE stage = 'test'");
  });

  it('alarms when the dispatch circuit keeps opening, and when the slow lane falls behind', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const circuit = alarms.find((a) => a.AlarmName === 'agent-integrations-test-dispatch-circuit-open')!;
    expect(circuit).toMatchObject({
      Namespace: 'AgentIntegrations',
      MetricName: 'DispatchCircuitOpened',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      EvaluationPeriods: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    // Powertools puts the function's name and the stage on every data point.
    expect(circuit.Dimensions).toEqual(
      expect.arrayContaining([
        { Name: 'service', Value: 'dispatch' },
        { Name: 'stage', Value: 'test' },
      ]),
    );
    const slow = alarms.find((a) => a.AlarmName === 'agent-integrations-test-dispatch-slow-lane-backlog')!;
    expect(slow).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 900 });
    const slowQueueId = ofType('AWS::SQS::Queue').find(([, q]) =>
      JSON.stringify(q.Properties.QueueName ?? '').includes('dispatch-slow'),
    )![0];
    expect(JSON.stringify(slow.Dimensions)).toContain(slowQueueId);
  });

  it('sends alarms to an encrypted, TLS-only topic only when an e-mail is given', () => {
    s.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    s.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    alt.template.resourceCountIs('AWS::SNS::Topic', 0);
    alt.template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: Match.absent() });
  });

  it('draws the product metrics of namespace AgentIntegrations by stage on the dashboard', () => {
    const [, dash] = ofType('AWS::CloudWatch::Dashboard')[0]!;
    expect(dash.Properties.DashboardName).toBe('agent-integrations-test');
    const body = JSON.stringify(dash.Properties.DashboardBody);
    for (const m of [
      'DeliveriesAccepted',
      'DeliveriesRefused',
      'DeliveriesDuplicated',
      'EventsDispatched',
      'EventsRetried',
      'EventsDeadLettered',
      'ToolSteps',
      'RateLimitWaits',
      'TokenRefreshes',
    ]) {
      expect(body).toContain(m);
    }
    expect(body).toContain('AgentIntegrations');
    expect(body).toContain('ApproximateAgeOfOldestMessage');
  });
});

describe('naming and policy checks', () => {
  it('puts the stage in the stack name and in every resource name', () => {
    const qa = alt;
    expect(qa.stack.stackName).toBe('AgentIntegrations-qa');
    const named: Array<[string, string]> = [];
    const nameKeys = ['TableName', 'QueueName', 'FunctionName', 'Name', 'DashboardName', 'AlarmName', 'LogGroupName', 'TopicName'];
    for (const r of Object.values(qa.template.toJSON().Resources as Record<string, Resource>)) {
      for (const k of nameKeys) {
        const v = r.Properties?.[k];
        if (typeof v === 'string') named.push([r.Type, v]);
      }
    }
    expect(named.length).toBeGreaterThan(20);
    for (const [type, name] of named) expect(name, type).toMatch(/agent-integrations[-/]qa\b/);
  });

  it('passes cdk-nag AwsSolutions with every acknowledgment written in code', () => {
    const report = new AwsSolutionsChecks(s.app).validateScope(s.app);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath).join(',')}`)).toEqual([]);
  });
});
