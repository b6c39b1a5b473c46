/**
 * Turns one raw HTTP request to DynamoDB, SQS, S3, Secrets Manager or KMS into the authorization
 * checks AWS would make for it: the IAM action, the resource ARN and the request's condition
 * keys. Anything it does not recognise comes back `unclassified` with the reason, never as an
 * empty list of checks: the proxy fails the test on it rather than letting the call through.
 * Pure: no network, no clock.
 */
import { type Resolver, secretArnFor } from './template-policies';

export interface KeyNames {
  partitionKey: string;
  sortKey?: string;
}

export interface TableSchema extends KeyNames {
  arn: string;
  /** GSIs and LSIs by name. */
  indexes: Record<string, KeyNames>;
}

export interface RawRequest {
  method: string;
  /** Path with the query string: `/bucket/key?x-id=PutObject`. */
  path: string;
  /** Header names in any case. */
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array | string;
}

export interface AuthzCheck {
  /** `dynamodb:PutItem` */
  action: string;
  /** The full ARN, or `*` for an action without a resource type. */
  resource: string;
  /** The request context keys this request sets, e.g. `{ 'dynamodb:LeadingKeys': ['EVT#x'] }`. */
  conditions: Record<string, string[]>;
}

export type Service = 'dynamodb' | 'sqs' | 's3' | 'secretsmanager' | 'kms';

export type Classification =
  | { kind: 'classified'; service: Service; operation: string; checks: AuthzCheck[] }
  | { kind: 'unclassified'; service?: string; operation?: string; reason: string };

export interface ClassifyContext {
  resolver: Resolver;
  /** By table name (tableSchemas()); an item operation on a table not in it is unclassified. */
  tables: Record<string, TableSchema>;
  /** Host names (no port) the S3 emulator answers on: `<bucket>.<host>` is virtual-host style. */
  s3Hosts?: string[];
  /** SecretId (name, partial or full ARN) -> full ARN; the default is described at defaultSecretArn. */
  secretArn?: (secretId: string) => string | undefined;
  /** QueueUrl -> queue ARN; the default is described at defaultQueueArn. */
  queueArn?: (queueUrl: string) => string | undefined;
  /** The service, when the proxy knows it from the endpoint and the request carries no SigV4 scope. */
  service?: Service;
}

class Unclassified extends Error {
  constructor(
    readonly reason: string,
    readonly operation?: string,
  ) {
    super(reason);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function header(req: RawRequest, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(req.headers)) {
    if (k.toLowerCase() === want) return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

function bodyText(req: RawRequest): string {
  // S3 object bodies are never read; the bodies read here (JSON, forms, DeleteObjects XML) come uncompressed.
  const encoding = header(req, 'content-encoding');
  if (encoding && encoding.toLowerCase() !== 'identity') throw new Unclassified(`a body with Content-Encoding ${encoding} is not read`);
  return typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString('utf8');
}

function jsonBody(req: RawRequest, operation: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText(req) || '{}');
  } catch {
    throw new Unclassified('the body is not JSON', operation);
  }
  if (!isObject(parsed)) throw new Unclassified('the body is not a JSON object', operation);
  return parsed;
}

function str(body: Record<string, unknown>, field: string, operation: string): string {
  const v = body[field];
  if (typeof v !== 'string' || v === '') throw new Unclassified(`${field} is missing or not a string`, operation);
  return v;
}

/** The service named in the SigV4 credential scope (`Credential=AKID/date/region/service/aws4_request`), header or query. */
function signedService(req: RawRequest): string | undefined {
  const auth = header(req, 'authorization') ?? '';
  const fromHeader = /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(auth)?.[1];
  if (fromHeader) return fromHeader;
  const q = new URLSearchParams(req.path.split('?')[1] ?? '').get('X-Amz-Credential');
  return q?.split('/')[3];
}

function check(action: string, resource: string, conditions: Record<string, string[]> = {}): AuthzCheck {
  return { action, resource, conditions };
}

// ---------------------------------------------------------------------------------------------
// DynamoDB (JSON 1.0, X-Amz-Target: DynamoDB_20120810.<Operation>)
//
// dynamodb:LeadingKeys is the partition key value(s) of the items a request names; on an index
// Query it is the index's partition key (the attribute the KeyConditionExpression fixes), which
// is why the stack grants index queries their own patterns. BatchGetItem/BatchWriteItem are
// authorized per table with every item's key, under the batch action; a transaction's items are
// each authorized under their own action (Put -> PutItem, ConditionCheck -> ConditionCheckItem).
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html
// ---------------------------------------------------------------------------------------------

function attrValue(v: unknown, where: string, operation: string): string {
  if (isObject(v)) {
    for (const t of ['S', 'N', 'B'] as const) if (typeof v[t] === 'string') return v[t] as string;
  }
  throw new Unclassified(`${where} is not a string, number or binary attribute value`, operation);
}

function tableOf(ctx: ClassifyContext, tableName: string, operation: string): TableSchema {
  // TableName may be the table's ARN.
  const name = tableName.startsWith('arn:') ? (tableName.slice(tableName.indexOf(':table/') + 7).split('/')[0] ?? '') : tableName;
  const t = ctx.tables[name];
  if (!t) throw new Unclassified(`table ${tableName} is not in the template's table schemas`, operation);
  return t;
}

function tableArnByName(ctx: ClassifyContext, tableName: string): string {
  if (tableName.startsWith('arn:')) return tableName;
  const r = ctx.resolver;
  return ctx.tables[tableName]?.arn ?? `arn:${r.partition}:dynamodb:${r.region}:${r.accountId}:table/${tableName}`;
}

function partitionOf(item: unknown, keys: KeyNames, where: string, operation: string): string {
  if (!isObject(item)) throw new Unclassified(`${where} is missing`, operation);
  return attrValue(item[keys.partitionKey], `${where}.${keys.partitionKey}`, operation);
}

/** Condition keys a request sets besides LeadingKeys, when it names them. */
function ddbExtras(body: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [field, key] of [
    ['Select', 'dynamodb:Select'],
    ['ReturnValues', 'dynamodb:ReturnValues'],
    ['ReturnConsumedCapacity', 'dynamodb:ReturnConsumedCapacity'],
  ] as const) {
    if (typeof body[field] === 'string') out[key] = [body[field] as string];
  }
  return out;
}

const unique = (xs: string[]) => [...new Set(xs)];

/** The partition key value a Query fixes: `<pk> = :v` in KeyConditionExpression, or the legacy KeyConditions EQ. */
function queryPartitionValue(body: Record<string, unknown>, pkName: string, operation: string): string {
  const names = isObject(body.ExpressionAttributeNames) ? body.ExpressionAttributeNames : {};
  const values = isObject(body.ExpressionAttributeValues) ? body.ExpressionAttributeValues : {};
  const nameOf = (token: string) => (token.startsWith('#') ? names[token] : token);
  if (typeof body.KeyConditionExpression === 'string') {
    const expr = body.KeyConditionExpression;
    const token = String.raw`(#?[A-Za-z0-9_.\-]+|:[A-Za-z0-9_]+)`;
    const found: string[] = [];
    for (const m of expr.matchAll(new RegExp(`${token}\\s*=\\s*${token}`, 'g'))) {
      const [, a = '', b = ''] = m;
      const [attr, val] = a.startsWith(':') ? [b, a] : [a, b];
      if (val.startsWith(':') && nameOf(attr) === pkName) found.push(attrValue(values[val], `ExpressionAttributeValues.${val}`, operation));
    }
    if (found.length !== 1) throw new Unclassified(`KeyConditionExpression "${expr}" does not fix ${pkName} by one equality`, operation);
    return found[0] as string;
  }
  const legacy = isObject(body.KeyConditions) ? body.KeyConditions[pkName] : undefined;
  if (isObject(legacy) && legacy.ComparisonOperator === 'EQ' && Array.isArray(legacy.AttributeValueList))
    return attrValue(legacy.AttributeValueList[0], `KeyConditions.${pkName}`, operation);
  throw new Unclassified(`the Query fixes no value of ${pkName}`, operation);
}

function classifyDynamo(op: string, req: RawRequest, ctx: ClassifyContext): AuthzCheck[] {
  const body = jsonBody(req, op);
  const action = `dynamodb:${op}`;
  const extras = ddbExtras(body);
  switch (op) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
    case 'PutItem': {
      const t = tableOf(ctx, str(body, 'TableName', op), op);
      const field = op === 'PutItem' ? 'Item' : 'Key';
      return [check(action, t.arn, { 'dynamodb:LeadingKeys': [partitionOf(body[field], t, field, op)], ...extras })];
    }
    case 'Query': {
      const t = tableOf(ctx, str(body, 'TableName', op), op);
      const indexName = body.IndexName;
      if (indexName !== undefined && typeof indexName !== 'string') throw new Unclassified('IndexName is not a string', op);
      const keys = indexName ? t.indexes[indexName] : t;
      if (!keys) throw new Unclassified(`index ${indexName} is not in the schema of table ${body.TableName}`, op);
      const resource = indexName ? `${t.arn}/index/${indexName}` : t.arn;
      return [check(action, resource, { 'dynamodb:LeadingKeys': [queryPartitionValue(body, keys.partitionKey, op)], ...extras })];
    }
    case 'Scan': {
      const tableName = str(body, 'TableName', op);
      const indexName = typeof body.IndexName === 'string' ? body.IndexName : undefined;
      const arn = tableArnByName(ctx, tableName);
      return [check(action, indexName ? `${arn}/index/${indexName}` : arn, extras)];
    }
    case 'BatchGetItem':
    case 'BatchWriteItem': {
      if (!isObject(body.RequestItems) || Object.keys(body.RequestItems).length === 0)
        throw new Unclassified('RequestItems is missing or empty', op);
      return Object.entries(body.RequestItems).map(([tableName, spec]) => {
        const t = tableOf(ctx, tableName, op);
        let pks: string[];
        if (op === 'BatchGetItem') {
          const keys = isObject(spec) && Array.isArray(spec.Keys) ? spec.Keys : undefined;
          if (!keys || keys.length === 0) throw new Unclassified(`RequestItems.${tableName}.Keys is missing or empty`, op);
          pks = keys.map((k, i) => partitionOf(k, t, `RequestItems.${tableName}.Keys[${i}]`, op));
        } else {
          if (!Array.isArray(spec) || spec.length === 0)
            throw new Unclassified(`RequestItems.${tableName} is not a list of write requests`, op);
          pks = spec.map((w, i) => {
            const where = `RequestItems.${tableName}[${i}]`;
            if (isObject(w) && isObject(w.PutRequest)) return partitionOf(w.PutRequest.Item, t, `${where}.PutRequest.Item`, op);
            if (isObject(w) && isObject(w.DeleteRequest)) return partitionOf(w.DeleteRequest.Key, t, `${where}.DeleteRequest.Key`, op);
            throw new Unclassified(`${where} is neither a PutRequest nor a DeleteRequest`, op);
          });
        }
        return check(action, t.arn, { 'dynamodb:LeadingKeys': unique(pks), ...extras });
      });
    }
    case 'TransactGetItems':
    case 'TransactWriteItems': {
      const items = body.TransactItems;
      if (!Array.isArray(items) || items.length === 0) throw new Unclassified('TransactItems is missing or empty', op);
      const kinds: Record<string, [string, string]> =
        op === 'TransactGetItems'
          ? { Get: ['GetItem', 'Key'] }
          : {
              Put: ['PutItem', 'Item'],
              Update: ['UpdateItem', 'Key'],
              Delete: ['DeleteItem', 'Key'],
              ConditionCheck: ['ConditionCheckItem', 'Key'],
            };
      return items.map((item, i) => {
        const kind = isObject(item) ? Object.keys(item).find((k) => k in kinds) : undefined;
        const spec = kind && isObject(item) ? item[kind] : undefined;
        if (!kind || !isObject(spec)) throw new Unclassified(`TransactItems[${i}] is none of ${Object.keys(kinds).join(', ')}`, op);
        const [itemAction, field] = kinds[kind] as [string, string];
        const t = tableOf(ctx, str(spec, 'TableName', op), op);
        return check(`dynamodb:${itemAction}`, t.arn, {
          'dynamodb:LeadingKeys': [partitionOf(spec[field], t, `TransactItems[${i}].${kind}.${field}`, op)],
          ...ddbExtras(spec),
        });
      });
    }
    case 'DescribeTable':
    case 'CreateTable':
    case 'DeleteTable':
    case 'UpdateTable':
    case 'DescribeTimeToLive':
    case 'UpdateTimeToLive':
    case 'DescribeContinuousBackups':
      return [check(action, tableArnByName(ctx, str(body, 'TableName', op)))];
    case 'ListTables':
      return [check(action, '*')];
    default:
      throw new Unclassified(`DynamoDB operation ${op} is not classified`, op);
  }
}

// ---------------------------------------------------------------------------------------------
// SQS: JSON protocol (X-Amz-Target: AmazonSQS.<Operation>) and the query protocol (Action=...).
// A batch is authorized as its single-message action.
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html
// ---------------------------------------------------------------------------------------------

const sqsActions: Record<string, string> = {
  SendMessage: 'SendMessage',
  SendMessageBatch: 'SendMessage',
  ReceiveMessage: 'ReceiveMessage',
  DeleteMessage: 'DeleteMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibility: 'ChangeMessageVisibility',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
  GetQueueAttributes: 'GetQueueAttributes',
  SetQueueAttributes: 'SetQueueAttributes',
  GetQueueUrl: 'GetQueueUrl',
  PurgeQueue: 'PurgeQueue',
  ListQueueTags: 'ListQueueTags',
  ListDeadLetterSourceQueues: 'ListDeadLetterSourceQueues',
  StartMessageMoveTask: 'StartMessageMoveTask',
  ListMessageMoveTasks: 'ListMessageMoveTasks',
  ListQueues: 'ListQueues',
};

/**
 * The resolver's queue with this URL, else with the URL's last path segment as its name, else
 * the ARN AWS derives from the URL (`/<account>/<name>` -> arn:<p>:sqs:<region>:<account>:<name>).
 */
function defaultQueueArn(ctx: ClassifyContext, url: string): string | undefined {
  const all = Object.values(ctx.resolver.resources).filter((r) => r.QueueUrl !== undefined && r.Arn);
  const byUrl = all.find((r) => r.QueueUrl === url);
  if (byUrl) return byUrl.Arn;
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const [account, name] = path.split('/').filter(Boolean).slice(-2);
  if (!name) return undefined;
  const byName = all.find((r) => r.QueueName === name);
  if (byName) return byName.Arn;
  const r = ctx.resolver;
  return /^\d{12}$/.test(account ?? '') ? `arn:${r.partition}:sqs:${r.region}:${account}:${name}` : undefined;
}

function queueArnByName(ctx: ClassifyContext, name: string, owner?: string): string {
  const r = ctx.resolver;
  return `arn:${r.partition}:sqs:${r.region}:${owner ?? r.accountId}:${name}`;
}

function classifySqs(op: string, params: Record<string, unknown>, ctx: ClassifyContext): AuthzCheck[] {
  const action = sqsActions[op];
  if (!action) throw new Unclassified(`SQS operation ${op} is not classified`, op);
  if (op === 'ListQueues') return [check('sqs:ListQueues', '*')];
  if (op === 'GetQueueUrl') {
    const owner = typeof params.QueueOwnerAWSAccountId === 'string' ? params.QueueOwnerAWSAccountId : undefined;
    return [check('sqs:GetQueueUrl', queueArnByName(ctx, str(params, 'QueueName', op), owner))];
  }
  if (op === 'StartMessageMoveTask' || op === 'ListMessageMoveTasks') return [check(`sqs:${action}`, str(params, 'SourceArn', op))];
  const url = str(params, 'QueueUrl', op);
  const arn = (ctx.queueArn ?? ((u: string) => defaultQueueArn(ctx, u)))(url);
  if (!arn) throw new Unclassified(`QueueUrl ${url} names no known queue`, op);
  return [check(`sqs:${action}`, arn)];
}

// ---------------------------------------------------------------------------------------------
// S3 REST, path style (`/<bucket>/<key>`) and virtual-host style (`<bucket>.<host>/<key>`).
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html
// ---------------------------------------------------------------------------------------------

function s3Target(req: RawRequest, ctx: ClassifyContext): { bucket: string; key: string; query: URLSearchParams } {
  const [rawPath = '/', rawQuery = ''] = req.path.split('?', 2);
  const query = new URLSearchParams(rawQuery);
  const host = (header(req, 'host') ?? '').replace(/:\d+$/, '').toLowerCase();
  const segments = rawPath.split('/').slice(1);
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new Unclassified(`the path ${rawPath} is not valid percent-encoding`);
    }
  };
  const virtual =
    /^(.+)\.s3(?:[.-][a-z0-9-]+)*\.amazonaws\.com(?:\.cn)?$/.exec(host)?.[1] ??
    (ctx.s3Hosts ?? []).map((h) => (host.endsWith(`.${h.toLowerCase()}`) ? host.slice(0, -h.length - 1) : undefined)).find(Boolean);
  if (virtual) return { bucket: virtual, key: segments.map(decode).join('/'), query };
  const [bucket = '', ...rest] = segments;
  return { bucket: decode(bucket), key: rest.map(decode).join('/'), query };
}

/** The object keys of a DeleteObjects body (`<Delete><Object><Key>k</Key>...`). */
function deleteObjectsKeys(req: RawRequest): string[] {
  const unescapeXml = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  return [...bodyText(req).matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((m) => unescapeXml(m[1] ?? ''));
}

function classifyS3(req: RawRequest, ctx: ClassifyContext): { operation: string; checks: AuthzCheck[] } {
  const method = req.method.toUpperCase();
  const { bucket, key, query } = s3Target(req, ctx);
  const p = ctx.resolver.partition;
  if (!bucket) {
    if (method === 'GET') return { operation: 'ListBuckets', checks: [check('s3:ListAllMyBuckets', '*')] };
    throw new Unclassified(`S3 ${method} / is not classified`);
  }
  const bucketArn = `arn:${p}:s3:::${bucket}`;
  const objectArn = `${bucketArn}/${key}`;
  // Sub-resources the SDK adds for its own bookkeeping, not naming another operation.
  const sub = [...query.keys()].filter(
    (k) =>
      ![
        'x-id',
        'list-type',
        'prefix',
        'delimiter',
        'max-keys',
        'continuation-token',
        'start-after',
        'encoding-type',
        'fetch-owner',
        'versionId',
        'partNumber',
      ].includes(k) && !k.startsWith('X-Amz-'),
  );
  const only = (...allowed: string[]) => sub.every((k) => allowed.includes(k));
  const none = sub.length === 0;
  if (key) {
    const versioned = query.has('versionId');
    if (method === 'PUT' && none) {
      const source = header(req, 'x-amz-copy-source');
      if (!source) return { operation: 'PutObject', checks: [check('s3:PutObject', objectArn)] };
      const src = decodeURIComponent(source.replace(/^\//, '').split('?')[0] ?? '');
      return { operation: 'CopyObject', checks: [check('s3:PutObject', objectArn), check('s3:GetObject', `arn:${p}:s3:::${src}`)] };
    }
    if (method === 'PUT' && only('uploadId')) return { operation: 'UploadPart', checks: [check('s3:PutObject', objectArn)] };
    if ((method === 'GET' || method === 'HEAD') && none)
      return {
        operation: method === 'GET' ? 'GetObject' : 'HeadObject',
        checks: [check(versioned ? 's3:GetObjectVersion' : 's3:GetObject', objectArn)],
      };
    if (method === 'DELETE' && none)
      return { operation: 'DeleteObject', checks: [check(versioned ? 's3:DeleteObjectVersion' : 's3:DeleteObject', objectArn)] };
    if (method === 'POST' && (only('uploads') || only('uploadId')))
      return {
        operation: query.has('uploads') ? 'CreateMultipartUpload' : 'CompleteMultipartUpload',
        checks: [check('s3:PutObject', objectArn)],
      };
    if (method === 'DELETE' && only('uploadId'))
      return { operation: 'AbortMultipartUpload', checks: [check('s3:AbortMultipartUpload', objectArn)] };
    throw new Unclassified(`S3 ${method} on an object with ${sub.join(', ') || 'no'} sub-resource is not classified`);
  }
  if ((method === 'GET' || method === 'HEAD') && none) {
    const conditions: Record<string, string[]> = {};
    for (const [q, k] of [
      ['prefix', 's3:prefix'],
      ['delimiter', 's3:delimiter'],
      ['max-keys', 's3:max-keys'],
    ] as const) {
      const v = query.get(q);
      if (v !== null) conditions[k] = [v];
    }
    const operation = method === 'HEAD' ? 'HeadBucket' : query.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects';
    return { operation, checks: [check('s3:ListBucket', bucketArn, conditions)] };
  }
  if (method === 'POST' && only('delete')) {
    const keys = deleteObjectsKeys(req);
    if (keys.length === 0) throw new Unclassified('DeleteObjects names no object', 'DeleteObjects');
    return { operation: 'DeleteObjects', checks: keys.map((k) => check('s3:DeleteObject', `${bucketArn}/${k}`)) };
  }
  if (method === 'GET' && only('location')) return { operation: 'GetBucketLocation', checks: [check('s3:GetBucketLocation', bucketArn)] };
  if (method === 'GET' && only('versions')) return { operation: 'ListObjectVersions', checks: [check('s3:ListBucketVersions', bucketArn)] };
  if (method === 'GET' && only('uploads'))
    return { operation: 'ListMultipartUploads', checks: [check('s3:ListBucketMultipartUploads', bucketArn)] };
  if (method === 'PUT' && none) return { operation: 'CreateBucket', checks: [check('s3:CreateBucket', bucketArn)] };
  if (method === 'DELETE' && none) return { operation: 'DeleteBucket', checks: [check('s3:DeleteBucket', bucketArn)] };
  throw new Unclassified(`S3 ${method} on a bucket with ${sub.join(', ') || 'no'} sub-resource is not classified`);
}

// ---------------------------------------------------------------------------------------------
// Secrets Manager (JSON 1.1, X-Amz-Target: secretsmanager.<Operation>)
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html
// ---------------------------------------------------------------------------------------------

const secretOps = new Set([
  'GetSecretValue',
  'PutSecretValue',
  'DescribeSecret',
  'UpdateSecret',
  'DeleteSecret',
  'RestoreSecret',
  'TagResource',
  'UntagResource',
  'GetResourcePolicy',
  'PutResourcePolicy',
  'DeleteResourcePolicy',
  'ListSecretVersionIds',
  'RotateSecret',
  'CancelRotateSecret',
  'UpdateSecretVersionStage',
]);

/**
 * A full ARN as it is; a template secret by its name or its ARN without the suffix (from the
 * resolver); any other name (a secret the functions create at run time) gets the ARN
 * secretArnFor() gives it, the one CreateSecret is authorized on.
 */
function defaultSecretArn(ctx: ClassifyContext, id: string): string {
  const r = ctx.resolver;
  const prefix = `arn:${r.partition}:secretsmanager:${r.region}:${r.accountId}:secret:`;
  const secrets = Object.values(r.resources).filter((x) => x.Arn?.startsWith(prefix) && x.Name !== undefined);
  const known = secrets.find((x) => x.Arn === id || x.Name === id || `${prefix}${x.Name}` === id);
  if (known?.Arn) return known.Arn;
  if (id.startsWith('arn:')) {
    // A full ARN ends in -<6 characters> after the name; a partial one is the name alone.
    const name = id.slice(id.indexOf(':secret:') + 8);
    return /-[A-Za-z0-9]{6}$/.test(name) ? id : secretArnFor(r, name);
  }
  return secretArnFor(r, id);
}

function classifySecrets(op: string, req: RawRequest, ctx: ClassifyContext): AuthzCheck[] {
  const body = jsonBody(req, op);
  const action = `secretsmanager:${op}`;
  if (op === 'ListSecrets' || op === 'GetRandomPassword') return [check(action, '*')];
  if (op === 'CreateSecret') {
    const name = str(body, 'Name', op);
    return [check(action, secretArnFor(ctx.resolver, name), { 'secretsmanager:Name': [name] })];
  }
  if (!secretOps.has(op)) throw new Unclassified(`Secrets Manager operation ${op} is not classified`, op);
  const id = str(body, 'SecretId', op);
  const arn = ctx.secretArn ? ctx.secretArn(id) : defaultSecretArn(ctx, id);
  if (!arn) throw new Unclassified(`SecretId ${id} names no known secret`, op);
  const conditions: Record<string, string[]> = { 'secretsmanager:SecretId': [arn] };
  if (op === 'DeleteSecret' && body.ForceDeleteWithoutRecovery !== undefined)
    conditions['secretsmanager:ForceDeleteWithoutRecovery'] = [String(body.ForceDeleteWithoutRecovery === true)];
  return [check(action, arn, conditions)];
}

// ---------------------------------------------------------------------------------------------
// KMS (JSON 1.1, X-Amz-Target: TrentService.<Operation>)
// The resource is the KMS key; its encryption context is offered as kms:EncryptionContext:<key> and
// kms:EncryptionContextKeys. Decrypt is authorized on the key the ciphertext names: the suite cannot
// read a ciphertext, so a Decrypt that does not name its key (KeyId) is not classified.
// https://docs.aws.amazon.com/service-authorization/latest/reference/list_awskeymanagementservice.html
// ---------------------------------------------------------------------------------------------

const kmsKeyOps = new Set(['Encrypt', 'Decrypt', 'GenerateDataKey', 'GenerateDataKeyWithoutPlaintext', 'DescribeKey', 'ReEncrypt']);

function classifyKms(op: string, req: RawRequest, ctx: ClassifyContext): AuthzCheck[] {
  if (!kmsKeyOps.has(op)) throw new Unclassified(`KMS operation ${op} is not classified`, op);
  const body = jsonBody(req, op);
  const keyId = body.KeyId ?? body.DestinationKeyId;
  if (typeof keyId !== 'string' || keyId === '')
    throw new Unclassified(`${op} without KeyId names no key the suite can read (a ciphertext names its own)`, op);
  if (keyId.startsWith('alias/') || keyId.includes(':alias/')) throw new Unclassified(`KeyId ${keyId} is an alias, not resolved`, op);
  const r = ctx.resolver;
  const arn = keyId.startsWith('arn:') ? keyId : `arn:${r.partition}:kms:${r.region}:${r.accountId}:key/${keyId}`;
  const conditions: Record<string, string[]> = {};
  const context = body.EncryptionContext;
  if (isObject(context)) {
    conditions['kms:EncryptionContextKeys'] = Object.keys(context);
    for (const [k, v] of Object.entries(context)) conditions[`kms:EncryptionContext:${k}`] = [String(v)];
  }
  return [check(`kms:${op}`, arn, conditions)];
}

// ---------------------------------------------------------------------------------------------

const targets: Record<string, Service> = {
  DynamoDB_20120810: 'dynamodb',
  AmazonSQS: 'sqs',
  secretsmanager: 'secretsmanager',
  TrentService: 'kms',
};

/**
 * The checks AWS would make for this request. The service is read from X-Amz-Target, else the
 * SigV4 credential scope, else `ctx.service`; then the operation from the target, the form body's
 * Action (SQS query protocol) or the S3 method and path. Never throws on bad input.
 */
export function classifyRequest(req: RawRequest, ctx: ClassifyContext): Classification {
  let service: string | undefined;
  let operation: string | undefined;
  try {
    const target = header(req, 'x-amz-target');
    if (target) {
      const dot = target.indexOf('.');
      const prefix = dot > 0 ? target.slice(0, dot) : target;
      operation = dot > 0 ? target.slice(dot + 1) : undefined;
      service = targets[prefix];
      if (!service || !operation) throw new Unclassified(`X-Amz-Target ${target} names no classified service`);
      const op = operation;
      if (service === 'dynamodb') return { kind: 'classified', service, operation: op, checks: classifyDynamo(op, req, ctx) };
      if (service === 'sqs') return { kind: 'classified', service, operation: op, checks: classifySqs(op, jsonBody(req, op), ctx) };
      if (service === 'kms') return { kind: 'classified', service, operation: op, checks: classifyKms(op, req, ctx) };
      return { kind: 'classified', service: 'secretsmanager', operation: op, checks: classifySecrets(op, req, ctx) };
    }
    service = signedService(req) ?? ctx.service;
    if (service === 's3') {
      const out = classifyS3(req, ctx);
      operation = out.operation;
      return { kind: 'classified', service, operation: out.operation, checks: out.checks };
    }
    const contentType = header(req, 'content-type') ?? '';
    if (service === 'sqs' || (service === undefined && contentType.includes('x-www-form-urlencoded'))) {
      service = 'sqs';
      const form = new URLSearchParams(req.method.toUpperCase() === 'GET' ? (req.path.split('?')[1] ?? '') : bodyText(req));
      const params: Record<string, unknown> = Object.fromEntries(form);
      operation = form.get('Action') ?? undefined;
      if (!operation) throw new Unclassified('an SQS request with neither X-Amz-Target nor Action');
      // The query protocol may post to the queue's URL instead of naming it.
      if (params.QueueUrl === undefined && req.path.split('?')[0] !== '/') {
        const host = header(req, 'host') ?? 'localhost';
        params.QueueUrl = `http://${host}${req.path.split('?')[0]}`;
      }
      return { kind: 'classified', service: 'sqs', operation, checks: classifySqs(operation, params, ctx) };
    }
    throw new Unclassified(
      service
        ? `requests to ${service} without X-Amz-Target are not classified`
        : 'no X-Amz-Target, SigV4 scope or service hint names the service',
    );
  } catch (e) {
    if (!(e instanceof Unclassified)) throw e;
    return {
      kind: 'unclassified',
      ...(service ? { service } : {}),
      ...((e.operation ?? operation) ? { operation: e.operation ?? operation } : {}),
      reason: e.reason,
    };
  }
}
