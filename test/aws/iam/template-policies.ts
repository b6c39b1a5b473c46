/**
 * Reads, from a synthesized CloudFormation template, what a Lambda function's role is granted
 * and which environment the function runs with, with every intrinsic resolved to the names and
 * ARNs the AWS-mode suite gives its emulated resources. Pure: no network, no disk, no clock.
 */
import { createHash } from 'node:crypto';
import type { TableSchema } from './classify-request';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  [k: string]: unknown;
}
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Parameters?: Record<string, { Default?: unknown; [k: string]: unknown }>;
  [k: string]: unknown;
}

/** What one logical id resolves to: `Ref` and its `Fn::GetAtt` attributes. */
export interface ResolvedResource {
  Ref: string;
  Arn?: string;
  [attr: string]: string | undefined;
}

/** The pseudo parameters and what every logical id resolves to. */
export interface Resolver {
  partition: string;
  region: string;
  accountId: string;
  urlSuffix: string;
  stackName: string;
  stackId: string;
  resources: Record<string, ResolvedResource>;
}

export class UnresolvedIntrinsicError extends Error {
  readonly code = 'unresolved_intrinsic';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'UnresolvedIntrinsicError';
  }
}

/** Marks AWS::NoValue: the property or list element is dropped. */
const noValue = Symbol('AWS::NoValue');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function pseudo(name: string, r: Resolver): string | typeof noValue | undefined {
  switch (name) {
    case 'AWS::Partition':
      return r.partition;
    case 'AWS::Region':
      return r.region;
    case 'AWS::AccountId':
      return r.accountId;
    case 'AWS::URLSuffix':
      return r.urlSuffix;
    case 'AWS::StackName':
      return r.stackName;
    case 'AWS::StackId':
      return r.stackId;
    case 'AWS::NoValue':
      return noValue;
    default:
      return undefined;
  }
}

function ref(name: string, r: Resolver, path: string): string | typeof noValue {
  const p = pseudo(name, r);
  if (p !== undefined) return p;
  const res = r.resources[name];
  if (!res) throw new UnresolvedIntrinsicError(path, `Ref to ${name}, which the resolver does not know`);
  return res.Ref;
}

function getAtt(id: string, attr: string, r: Resolver, path: string): string {
  const res = r.resources[id];
  if (!res) throw new UnresolvedIntrinsicError(path, `Fn::GetAtt of ${id}.${attr}: the resolver does not know ${id}`);
  const v = res[attr];
  if (v === undefined) throw new UnresolvedIntrinsicError(path, `Fn::GetAtt of ${id}.${attr}: the resolver has no ${attr} for ${id}`);
  return v;
}

function asString(v: unknown, path: string, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new UnresolvedIntrinsicError(path, `${what} must resolve to a string, got ${JSON.stringify(v)}`);
}

function asList(v: unknown, path: string, what: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw new UnresolvedIntrinsicError(path, `${what} must resolve to a list, got ${JSON.stringify(v)}`);
}

/** `${Name}`, `${Logical.Attr}`, `${AWS::Region}`; `${!Literal}` stays literal (CloudFormation's escape). */
function sub(template: string, vars: Record<string, unknown>, r: Resolver, path: string): string {
  return template.replace(/\$\{([^}]*)\}/g, (_, name: string) => {
    if (name.startsWith('!')) return `\${${name.slice(1)}}`;
    if (name in vars) return asString(resolveAt(vars[name], r, `${path}.${name}`), path, `Fn::Sub variable ${name}`);
    if (pseudo(name, r) !== undefined || r.resources[name]) {
      const v = ref(name, r, path);
      if (v === noValue) throw new UnresolvedIntrinsicError(path, 'AWS::NoValue inside Fn::Sub');
      return v;
    }
    const dot = name.indexOf('.');
    if (dot > 0) return getAtt(name.slice(0, dot), name.slice(dot + 1), r, path);
    throw new UnresolvedIntrinsicError(path, `Fn::Sub names \${${name}}, which the resolver does not know`);
  });
}

function intrinsic(key: string, arg: unknown, r: Resolver, path: string): unknown {
  const at = `${path}.${key}`;
  switch (key) {
    case 'Ref':
      return ref(asString(arg, at, 'Ref'), r, at);
    case 'Fn::GetAtt': {
      const parts =
        typeof arg === 'string' ? [arg.slice(0, arg.indexOf('.')), arg.slice(arg.indexOf('.') + 1)] : asList(arg, at, 'Fn::GetAtt');
      const [id, attr] = parts.map((p, i) => asString(resolveAt(p, r, `${at}[${i}]`), at, 'Fn::GetAtt argument'));
      if (!id || !attr) throw new UnresolvedIntrinsicError(at, `malformed Fn::GetAtt ${JSON.stringify(arg)}`);
      return getAtt(id, attr, r, at);
    }
    case 'Fn::Join': {
      const [delim, list] = asList(arg, at, 'Fn::Join');
      const items = asList(resolveAt(list, r, `${at}[1]`), at, 'Fn::Join list');
      return items.map((v, i) => asString(v, `${at}[1][${i}]`, 'Fn::Join element')).join(asString(delim, at, 'Fn::Join delimiter'));
    }
    case 'Fn::Sub': {
      if (typeof arg === 'string') return sub(arg, {}, r, at);
      const [tpl, vars] = asList(arg, at, 'Fn::Sub');
      return sub(asString(tpl, at, 'Fn::Sub template'), isObject(vars) ? vars : {}, r, at);
    }
    case 'Fn::Select': {
      const [index, list] = asList(arg, at, 'Fn::Select');
      const i = Number(asString(resolveAt(index, r, `${at}[0]`), at, 'Fn::Select index'));
      const items = asList(resolveAt(list, r, `${at}[1]`), at, 'Fn::Select list');
      if (!Number.isInteger(i) || i < 0 || i >= items.length) throw new UnresolvedIntrinsicError(at, `Fn::Select index ${i} out of range`);
      return items[i];
    }
    case 'Fn::Split': {
      const [delim, value] = asList(arg, at, 'Fn::Split');
      return asString(resolveAt(value, r, `${at}[1]`), at, 'Fn::Split source').split(asString(delim, at, 'Fn::Split delimiter'));
    }
    default:
      throw new UnresolvedIntrinsicError(at, `${key} is not supported`);
  }
}

function resolveAt(value: unknown, r: Resolver, path: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => resolveAt(v, r, `${path}[${i}]`)).filter((v) => v !== noValue);
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]?.startsWith('Fn::'))) return intrinsic(keys[0], value[keys[0]], r, path);
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = resolveAt(value[k], r, `${path}.${k}`);
    if (v !== noValue) out[k] = v;
  }
  return out;
}

/**
 * Resolves Ref, Fn::GetAtt, Fn::Join, Fn::Sub (both forms), Fn::Select and Fn::Split anywhere in
 * `value`. Anything else (Fn::If, Fn::ImportValue, an unknown logical id or attribute) throws
 * UnresolvedIntrinsicError naming where: a half-resolved policy would be evaluated wrongly.
 */
export function resolveIntrinsics(value: unknown, resolver: Resolver, path = '$'): unknown {
  const out = resolveAt(value, resolver, path);
  if (out === noValue) throw new UnresolvedIntrinsicError(path, 'resolves to AWS::NoValue');
  return out;
}

/** A stable 6-character suffix, as Secrets Manager appends to a secret's name in its ARN. */
function secretSuffix(name: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let h = 0x811c9dc5;
  for (const ch of name) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  let out = '';
  for (let i = 0; i < 6; i++) {
    out += alphabet[h % alphabet.length];
    h = Math.floor(h / alphabet.length) + Math.imul(i + 1, 0x9e3779b1);
    h >>>= 0;
  }
  return out;
}

/**
 * The ARN a secret of this name has in the suite: `arn:<p>:secretsmanager:<r>:<a>:secret:<name>-<6 chars>`,
 * the suffix derived from the name so the classifier, the resolver and an emulator agree on it.
 */
export function secretArnFor(resolver: Pick<Resolver, 'partition' | 'region' | 'accountId'>, name: string): string {
  return `arn:${resolver.partition}:secretsmanager:${resolver.region}:${resolver.accountId}:secret:${name}-${secretSuffix(name)}`;
}

export interface BuildResolverOptions {
  region: string;
  accountId: string;
  partition?: string;
  urlSuffix?: string;
  stackName?: string;
  /** Default `arn:<p>:cloudformation:<r>:<a>:stack/<stackName>/11111111-2222-3333-4444-555555555555`. */
  stackId?: string;
  /** A queue's URL from its name; default `https://sqs.<region>.<urlSuffix>/<account>/<name>`. */
  queueUrl?: (queueName: string) => string;
  /** Replaces or adds attributes per logical id, after the defaults are computed. */
  overrides?: Record<string, Partial<ResolvedResource>>;
}

/** A lower-case id for generated names (CloudFormation appends a random tail; the suite needs a stable one). */
const generated = (stack: string, id: string) => `${stack}-${id}`;

function defaultsFor(id: string, res: CfnResource, r: Resolver, opts: BuildResolverOptions): ResolvedResource {
  const p = res.Properties ?? {};
  const named = (prop: string, fallback: string) =>
    p[prop] === undefined ? fallback : asString(resolveIntrinsics(p[prop], r, `${id}.Properties.${prop}`), id, prop);
  const { partition, region, accountId, urlSuffix, stackName } = r;
  switch (res.Type) {
    case 'AWS::DynamoDB::Table':
    case 'AWS::DynamoDB::GlobalTable': {
      const name = named('TableName', generated(stackName, id));
      const arn = `arn:${partition}:dynamodb:${region}:${accountId}:table/${name}`;
      return { Ref: name, Arn: arn, StreamArn: `${arn}/stream/1970-01-01T00:00:00.000`, TableId: id };
    }
    case 'AWS::SQS::Queue': {
      const fifo = p.FifoQueue === true || p.FifoQueue === 'true';
      const name = named('QueueName', generated(stackName, id) + (fifo ? '.fifo' : ''));
      const url = opts.queueUrl ? opts.queueUrl(name) : `https://sqs.${region}.${urlSuffix}/${accountId}/${name}`;
      return { Ref: url, QueueUrl: url, QueueName: name, Arn: `arn:${partition}:sqs:${region}:${accountId}:${name}` };
    }
    case 'AWS::S3::Bucket': {
      const name = named('BucketName', generated(stackName, id).toLowerCase().slice(0, 63));
      return {
        Ref: name,
        Arn: `arn:${partition}:s3:::${name}`,
        DomainName: `${name}.s3.${urlSuffix}`,
        RegionalDomainName: `${name}.s3.${region}.${urlSuffix}`,
        DualStackDomainName: `${name}.s3.dualstack.${region}.${urlSuffix}`,
        WebsiteURL: `http://${name}.s3-website-${region}.${urlSuffix}`,
      };
    }
    case 'AWS::SecretsManager::Secret': {
      const name = named('Name', generated(stackName, id));
      const arn = secretArnFor(r, name);
      return { Ref: arn, Arn: arn, Id: arn, Name: name };
    }
    case 'AWS::KMS::Key': {
      // A key id is a UUID; a stable one from the logical id.
      const hex = createHash('sha256').update(id).digest('hex');
      const keyId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
      return { Ref: keyId, KeyId: keyId, Arn: `arn:${partition}:kms:${region}:${accountId}:key/${keyId}` };
    }
    case 'AWS::Lambda::Function': {
      const name = named('FunctionName', generated(stackName, id));
      return { Ref: name, Arn: `arn:${partition}:lambda:${region}:${accountId}:function:${name}` };
    }
    case 'AWS::IAM::Role': {
      const name = named('RoleName', generated(stackName, id));
      return { Ref: name, Arn: `arn:${partition}:iam::${accountId}:role/${name}`, RoleId: `AROA${id.toUpperCase().slice(0, 17)}` };
    }
    case 'AWS::IAM::ManagedPolicy': {
      const name = named('ManagedPolicyName', generated(stackName, id));
      const arn = `arn:${partition}:iam::${accountId}:policy/${name}`;
      return { Ref: arn, PolicyArn: arn };
    }
    case 'AWS::Logs::LogGroup': {
      const name = named('LogGroupName', `/aws/${generated(stackName, id)}`);
      return { Ref: name, Arn: `arn:${partition}:logs:${region}:${accountId}:log-group:${name}:*` };
    }
    case 'AWS::Events::Rule': {
      const name = named('Name', generated(stackName, id));
      return { Ref: name, Arn: `arn:${partition}:events:${region}:${accountId}:rule/${name}` };
    }
    case 'AWS::SNS::Topic': {
      const name = named('TopicName', generated(stackName, id));
      const arn = `arn:${partition}:sns:${region}:${accountId}:${name}`;
      return { Ref: arn, TopicArn: arn, TopicName: name };
    }
    case 'AWS::ApiGatewayV2::Api': {
      const apiId = id
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 10);
      return { Ref: apiId, ApiId: apiId, ApiEndpoint: `https://${apiId}.execute-api.${region}.${urlSuffix}` };
    }
    default:
      return { Ref: id };
  }
}

/**
 * A resolver with plausible, stable physical names and ARNs for every resource of the template
 * (names the template gives are kept; generated ones are `<stackName>-<logicalId>`). Resources
 * whose names depend on others (a queue named after the stack id) are resolved in as many passes
 * as it takes; one that never resolves throws.
 */
export function buildResolver(template: CfnTemplate, opts: BuildResolverOptions): Resolver {
  const partition = opts.partition ?? 'aws';
  const stackName = opts.stackName ?? 'Stack';
  const r: Resolver = {
    partition,
    region: opts.region,
    accountId: opts.accountId,
    urlSuffix: opts.urlSuffix ?? 'amazonaws.com',
    stackName,
    stackId:
      opts.stackId ??
      `arn:${partition}:cloudformation:${opts.region}:${opts.accountId}:stack/${stackName}/11111111-2222-3333-4444-555555555555`,
    resources: {},
  };
  for (const [id, param] of Object.entries(template.Parameters ?? {})) {
    if (param.Default !== undefined) r.resources[id] = { Ref: String(param.Default) };
  }
  let pending = Object.entries(template.Resources);
  while (pending.length > 0) {
    const failed: typeof pending = [];
    let lastError: unknown;
    for (const [id, res] of pending) {
      try {
        r.resources[id] = { ...defaultsFor(id, res, r, opts), ...(opts.overrides?.[id] ?? {}) } as ResolvedResource;
      } catch (e) {
        if (!(e instanceof UnresolvedIntrinsicError)) throw e;
        failed.push([id, res]);
        lastError = e;
      }
    }
    if (failed.length === pending.length) throw lastError;
    pending = failed;
  }
  for (const [id, o] of Object.entries(opts.overrides ?? {})) r.resources[id] ??= { Ref: id, ...o } as ResolvedResource;
  return r;
}

function resource(template: CfnTemplate, id: string, type: string): CfnResource {
  const res = template.Resources[id];
  if (!res) throw new Error(`the template has no resource ${id}`);
  if (res.Type !== type) throw new Error(`${id} is a ${res.Type}, not a ${type}`);
  return res;
}

/** Logical ids of every AWS::Lambda::Function in the template. */
export function lambdaFunctions(template: CfnTemplate): string[] {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id]) => id);
}

/** The logical id of the function's role, from `Role: { Fn::GetAtt: [RoleId, 'Arn'] }`. */
export function functionRoleId(template: CfnTemplate, functionLogicalId: string): string {
  const role = resource(template, functionLogicalId, 'AWS::Lambda::Function').Properties?.Role;
  const att = isObject(role) ? role['Fn::GetAtt'] : undefined;
  const id = Array.isArray(att) ? att[0] : typeof att === 'string' ? att.split('.')[0] : undefined;
  if (typeof id !== 'string' || template.Resources[id]?.Type !== 'AWS::IAM::Role')
    throw new Error(`${functionLogicalId}.Properties.Role is not a Fn::GetAtt of a role in this template: ${JSON.stringify(role)}`);
  return id;
}

export type ConditionBlock = Record<string, Record<string, unknown>>;

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  /** Operator -> condition key -> value(s). */
  Condition?: ConditionBlock;
}

export interface SourcedStatement extends PolicyStatement {
  /** Where it came from, for messages: `AWS::IAM::Policy DispatchRoleDefaultPolicy23EF90CD`. */
  source: string;
}

export interface RolePolicies {
  functionLogicalId: string;
  roleLogicalId: string;
  /** The role's name as the resolver gives it, for messages. */
  roleName: string;
  /** Resolved: every Resource, NotResource and Condition value is a plain string. */
  statements: SourcedStatement[];
  /** Managed policies outside the template, listed but not evaluated (AWSLambdaBasicExecutionRole grants only logs). */
  managedPolicyArns: string[];
  /** A permissions boundary is not evaluated; set when the role has one, so a caller can refuse. */
  permissionsBoundary?: string;
}

function statementsOf(document: unknown, source: string, r: Resolver): SourcedStatement[] {
  if (!isObject(document)) throw new Error(`${source}: the policy document is not an object`);
  const raw = document.Statement;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.map((s, i) => {
    if (!isObject(s) || (s.Effect !== 'Allow' && s.Effect !== 'Deny')) throw new Error(`${source} statement ${i}: no valid Effect`);
    const resolved = resolveIntrinsics(s, r, `${source}.Statement[${i}]`) as Record<string, unknown>;
    for (const k of ['Action', 'NotAction', 'Resource', 'NotResource'] as const) {
      const v = resolved[k];
      if (v !== undefined && typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string')))
        throw new Error(`${source} statement ${i}: ${k} did not resolve to strings: ${JSON.stringify(v)}`);
    }
    if (resolved.Principal !== undefined || resolved.NotPrincipal !== undefined)
      throw new Error(`${source} statement ${i}: a Principal in an identity policy`);
    return { ...(resolved as unknown as PolicyStatement), source };
  });
}

const refersTo = (v: unknown, id: string, name: string) => (isObject(v) && v.Ref === id) || v === name;

/**
 * Every statement that applies to the function's role: the AWS::IAM::Policy and
 * AWS::IAM::ManagedPolicy resources whose Roles name it, managed policies of this template in its
 * ManagedPolicyArns, and its inline Policies; other managed policy ARNs are listed, not evaluated.
 */
export function policiesForFunction(template: CfnTemplate, functionLogicalId: string, resolver: Resolver): RolePolicies {
  const roleLogicalId = functionRoleId(template, functionLogicalId);
  const role = resource(template, roleLogicalId, 'AWS::IAM::Role');
  const roleName = resolver.resources[roleLogicalId]?.Ref ?? roleLogicalId;
  const statements: SourcedStatement[] = [];
  const managedPolicyArns: string[] = [];
  const rp = role.Properties ?? {};

  for (const [i, p] of (Array.isArray(rp.Policies) ? rp.Policies : []).entries()) {
    const name = isObject(p) && typeof p.PolicyName === 'string' ? p.PolicyName : String(i);
    statements.push(
      ...statementsOf(isObject(p) ? p.PolicyDocument : undefined, `AWS::IAM::Role ${roleLogicalId} inline ${name}`, resolver),
    );
  }
  const attachedHere = new Set<string>();
  for (const arn of Array.isArray(rp.ManagedPolicyArns) ? rp.ManagedPolicyArns : []) {
    const local =
      isObject(arn) && typeof arn.Ref === 'string' && template.Resources[arn.Ref]?.Type === 'AWS::IAM::ManagedPolicy' ? arn.Ref : undefined;
    if (local) attachedHere.add(local);
    else
      managedPolicyArns.push(
        asString(resolveIntrinsics(arn, resolver, `${roleLogicalId}.ManagedPolicyArns`), roleLogicalId, 'ManagedPolicyArns'),
      );
  }
  for (const [id, res] of Object.entries(template.Resources)) {
    if (res.Type !== 'AWS::IAM::Policy' && res.Type !== 'AWS::IAM::ManagedPolicy') continue;
    const roles = res.Properties?.Roles;
    const named = Array.isArray(roles) && roles.some((x) => refersTo(x, roleLogicalId, roleName));
    if (named || attachedHere.has(id)) statements.push(...statementsOf(res.Properties?.PolicyDocument, `${res.Type} ${id}`, resolver));
  }
  const boundary = rp.PermissionsBoundary;
  return {
    functionLogicalId,
    roleLogicalId,
    roleName,
    statements,
    managedPolicyArns,
    ...(boundary === undefined
      ? {}
      : {
          permissionsBoundary: asString(
            resolveIntrinsics(boundary, resolver, `${roleLogicalId}.PermissionsBoundary`),
            roleLogicalId,
            'PermissionsBoundary',
          ),
        }),
  };
}

/** The function's Environment.Variables, resolved with the same resolver ({} when it has none). */
export function functionEnvironment(template: CfnTemplate, functionLogicalId: string, resolver: Resolver): Record<string, string> {
  const fn = resource(template, functionLogicalId, 'AWS::Lambda::Function');
  const env = fn.Properties?.Environment;
  const vars = isObject(env) ? env.Variables : undefined;
  if (vars === undefined) return {};
  const resolved = resolveIntrinsics(vars, resolver, `${functionLogicalId}.Environment.Variables`);
  if (!isObject(resolved)) throw new Error(`${functionLogicalId}.Environment.Variables is not an object`);
  return Object.fromEntries(
    Object.entries(resolved).map(([k, v]) => [k, asString(v, `${functionLogicalId}.Environment.Variables.${k}`, k)]),
  );
}

function keysOf(schema: unknown, where: string): { partitionKey: string; sortKey?: string } {
  const list = Array.isArray(schema) ? schema : [];
  const attr = (type: string) => {
    const e = list.find((k) => isObject(k) && k.KeyType === type);
    return isObject(e) && typeof e.AttributeName === 'string' ? e.AttributeName : undefined;
  };
  const partitionKey = attr('HASH');
  if (!partitionKey) throw new Error(`${where}: KeySchema has no HASH key`);
  const sortKey = attr('RANGE');
  return sortKey ? { partitionKey, sortKey } : { partitionKey };
}

/** Key schema of every DynamoDB table in the template (with its GSIs and LSIs), by resolved table name. */
export function tableSchemas(template: CfnTemplate, resolver: Resolver): Record<string, TableSchema> {
  const out: Record<string, TableSchema> = {};
  for (const [id, res] of Object.entries(template.Resources)) {
    if (res.Type !== 'AWS::DynamoDB::Table' && res.Type !== 'AWS::DynamoDB::GlobalTable') continue;
    const p = res.Properties ?? {};
    const resolved = resolver.resources[id];
    if (!resolved?.Arn) throw new Error(`the resolver has no Arn for table ${id}`);
    const indexes: TableSchema['indexes'] = {};
    for (const group of [p.GlobalSecondaryIndexes, p.LocalSecondaryIndexes]) {
      for (const ix of Array.isArray(group) ? group : []) {
        if (isObject(ix) && typeof ix.IndexName === 'string') indexes[ix.IndexName] = keysOf(ix.KeySchema, `${id} index ${ix.IndexName}`);
      }
    }
    out[resolved.Ref] = { arn: resolved.Arn, ...keysOf(p.KeySchema, id), indexes };
  }
  return out;
}
