import { describe, expect, it } from 'vitest';
import type { AuthzCheck } from './classify-request';
import { arnMatch, authorize, evaluate, type PolicySet, wildcardMatch } from './evaluate';
import type { PolicyStatement } from './template-policies';

const table = 'arn:aws:dynamodb:us-east-1:123456789012:table/T';
const policy = (...statements: PolicyStatement[]): PolicySet => ({ roleName: 'TestRole', statements });
const req = (action: string, resource: string, conditions: Record<string, string[]> = {}): AuthzCheck => ({ action, resource, conditions });
const allowed = (p: PolicySet, c: AuthzCheck) => evaluate(p, c).allowed;

describe('evaluate: which statement decides', () => {
  it('denies by default, naming the role, the action and the resource', () => {
    const d = evaluate(policy(), req('dynamodb:GetItem', table));
    expect(d.allowed).toBe(false);
    expect(d.reason).toContain('role TestRole dynamodb:GetItem on arn:aws:dynamodb:us-east-1:123456789012:table/T');
    expect(d.reason).toContain('implicitly denied');
  });

  it('allows when one Allow statement names the action on the resource', () => {
    const p = policy({ Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: table });
    expect(allowed(p, req('dynamodb:GetItem', table))).toBe(true);
    expect(allowed(p, req('dynamodb:PutItem', table))).toBe(false);
    expect(allowed(p, req('dynamodb:GetItem', `${table}2`))).toBe(false);
  });

  it('an explicit Deny wins over any Allow, whatever the order', () => {
    const deny: PolicyStatement = { Effect: 'Deny', Action: 'dynamodb:*', Resource: table, Sid: 'NoTable' };
    const allow: PolicyStatement = { Effect: 'Allow', Action: '*', Resource: '*' };
    for (const p of [policy(deny, allow), policy(allow, deny)]) {
      const d = evaluate(p, req('dynamodb:GetItem', table));
      expect(d.allowed).toBe(false);
      expect(d.reason).toContain('explicitly denied');
      expect(d.reason).toContain('NoTable');
    }
    expect(allowed(policy(deny, allow), req('sqs:SendMessage', 'arn:aws:sqs:us-east-1:123456789012:q'))).toBe(true);
  });

  it('a Deny whose condition does not hold does not deny', () => {
    const p = policy(
      { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: table },
      { Effect: 'Deny', Action: 'dynamodb:GetItem', Resource: table, Condition: { StringLike: { 'dynamodb:LeadingKeys': 'SECRET#*' } } },
    );
    expect(allowed(p, req('dynamodb:GetItem', table, { 'dynamodb:LeadingKeys': ['PUB#1'] }))).toBe(true);
    expect(allowed(p, req('dynamodb:GetItem', table, { 'dynamodb:LeadingKeys': ['SECRET#1'] }))).toBe(false);
  });
});

describe('evaluate: Action and NotAction', () => {
  it('matches actions case-insensitively, with * and ? wildcards', () => {
    expect(allowed(policy({ Effect: 'Allow', Action: 'DynamoDB:getitem', Resource: '*' }), req('dynamodb:GetItem', table))).toBe(true);
    expect(allowed(policy({ Effect: 'Allow', Action: 'dynamodb:Get*', Resource: '*' }), req('dynamodb:GetItem', table))).toBe(true);
    expect(allowed(policy({ Effect: 'Allow', Action: 'dynamodb:Get*', Resource: '*' }), req('dynamodb:PutItem', table))).toBe(false);
    expect(allowed(policy({ Effect: 'Allow', Action: 'sqs:?eceiveMessage', Resource: '*' }), req('sqs:ReceiveMessage', table))).toBe(true);
    expect(
      allowed(policy({ Effect: 'Allow', Action: ['s3:GetObject', 'dynamodb:PutItem'], Resource: '*' }), req('dynamodb:PutItem', table)),
    ).toBe(true);
  });

  it('NotAction allows every action but the ones it lists', () => {
    const p = policy({ Effect: 'Allow', NotAction: ['dynamodb:Delete*'], Resource: '*' });
    expect(allowed(p, req('dynamodb:PutItem', table))).toBe(true);
    expect(allowed(p, req('dynamodb:DeleteItem', table))).toBe(false);
  });
});

describe('evaluate: Resource and NotResource', () => {
  it('matches ARNs case-sensitively', () => {
    const p = policy({ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bucket/*' });
    expect(allowed(p, req('s3:GetObject', 'arn:aws:s3:::bucket/a/b'))).toBe(true);
    expect(allowed(p, req('s3:GetObject', 'arn:aws:s3:::Bucket/a'))).toBe(false);
    expect(allowed(p, req('s3:GetObject', 'arn:aws:s3:::bucket'))).toBe(false);
  });

  it('a wildcard inside an ARN segment stays within it; one that ends a segment may cross colons', () => {
    expect(arnMatch('arn:aws:dynamodb:*:123456789012:table/T', table)).toBe(true);
    expect(arnMatch('arn:aws:dynamodb:us-*-1:123456789012:table/T', table)).toBe(true);
    // `us-*1` must not swallow ':123456789012' to find a later '1'.
    expect(arnMatch('arn:aws:dynamodb:us*2:table/T', table)).toBe(false);
    expect(arnMatch('arn:aws:dynamodb:*', table)).toBe(true);
    expect(
      arnMatch(
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:app/*',
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:app/x-AbCdEf',
      ),
    ).toBe(true);
    expect(
      arnMatch(
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:app-??????',
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:app-AbCdEf',
      ),
    ).toBe(true);
    expect(
      arnMatch(
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:app-??????',
        'arn:aws:secretsmanager:us-east-1:123456789012:secret:app-AbCdE',
      ),
    ).toBe(false);
  });

  it('a table grant does not reach its indexes', () => {
    const p = policy({ Effect: 'Allow', Action: 'dynamodb:Query', Resource: table });
    expect(allowed(p, req('dynamodb:Query', `${table}/index/gsi1`))).toBe(false);
  });

  it('NotResource applies to every resource but the ones it lists', () => {
    const p = policy({ Effect: 'Allow', Action: 's3:*', NotResource: 'arn:aws:s3:::private/*' });
    expect(allowed(p, req('s3:GetObject', 'arn:aws:s3:::public/x'))).toBe(true);
    expect(allowed(p, req('s3:GetObject', 'arn:aws:s3:::private/x'))).toBe(false);
  });

  it('wildcardMatch covers the whole string and escapes regex characters', () => {
    expect(wildcardMatch('EVT#*', 'EVT#a.b')).toBe(true);
    expect(wildcardMatch('a.c', 'abc')).toBe(false);
    expect(wildcardMatch('CONN#*', 'XCONN#1')).toBe(false);
  });
});

describe('evaluate: conditions', () => {
  const withCondition = (Condition: PolicyStatement['Condition']) =>
    policy({ Effect: 'Allow', Action: 'dynamodb:*', Resource: table, Condition });
  const lk = (...keys: string[]) => req('dynamodb:GetItem', table, { 'dynamodb:LeadingKeys': keys });

  it('StringEquals and StringNotEquals; several policy values are ORed', () => {
    const eq = withCondition({ StringEquals: { 'dynamodb:LeadingKeys': ['A', 'B'] } });
    expect(allowed(eq, lk('B'))).toBe(true);
    expect(allowed(eq, lk('C'))).toBe(false);
    const ne = withCondition({ StringNotEquals: { 'dynamodb:LeadingKeys': ['A', 'B'] } });
    expect(allowed(ne, lk('C'))).toBe(true);
    expect(allowed(ne, lk('A'))).toBe(false);
  });

  it('StringLike and StringNotLike take wildcards', () => {
    expect(allowed(withCondition({ StringLike: { 'dynamodb:LeadingKeys': 'CONN#*' } }), lk('CONN#1'))).toBe(true);
    expect(allowed(withCondition({ StringLike: { 'dynamodb:LeadingKeys': 'CONN#*' } }), lk('SUB#1'))).toBe(false);
    expect(allowed(withCondition({ StringNotLike: { 'dynamodb:LeadingKeys': 'CONN#*' } }), lk('SUB#1'))).toBe(true);
    expect(allowed(withCondition({ StringNotLike: { 'dynamodb:LeadingKeys': 'CONN#*' } }), lk('CONN#1'))).toBe(false);
  });

  it('condition key names are case-insensitive, values are not', () => {
    expect(allowed(withCondition({ StringEquals: { 'DynamoDB:leadingkeys': 'A' } }), lk('A'))).toBe(true);
    expect(allowed(withCondition({ StringEquals: { 'dynamodb:LeadingKeys': 'a' } }), lk('A'))).toBe(false);
    expect(allowed(withCondition({ StringEqualsIgnoreCase: { 'dynamodb:LeadingKeys': 'a' } }), lk('A'))).toBe(true);
  });

  it('several keys and several operators are ANDed', () => {
    const p = withCondition({
      StringLike: { 'dynamodb:LeadingKeys': 'CONN#*' },
      StringEquals: { 'dynamodb:ReturnValues': 'NONE', 'dynamodb:Select': 'ALL_ATTRIBUTES' },
    });
    const c = (rv: string, sel: string) =>
      req('dynamodb:GetItem', table, { 'dynamodb:LeadingKeys': ['CONN#1'], 'dynamodb:ReturnValues': [rv], 'dynamodb:Select': [sel] });
    expect(allowed(p, c('NONE', 'ALL_ATTRIBUTES'))).toBe(true);
    expect(allowed(p, c('ALL_OLD', 'ALL_ATTRIBUTES'))).toBe(false);
    expect(allowed(p, c('NONE', 'COUNT'))).toBe(false);
  });

  it('a key absent from the request fails a positive operator and satisfies a negated one; IfExists holds', () => {
    const none = req('dynamodb:GetItem', table);
    expect(allowed(withCondition({ StringEquals: { 'dynamodb:Select': 'COUNT' } }), none)).toBe(false);
    expect(allowed(withCondition({ StringNotEquals: { 'dynamodb:Select': 'COUNT' } }), none)).toBe(true);
    expect(allowed(withCondition({ StringEqualsIfExists: { 'dynamodb:Select': 'COUNT' } }), none)).toBe(true);
    expect(
      allowed(
        withCondition({ StringEqualsIfExists: { 'dynamodb:Select': 'COUNT' } }),
        req('dynamodb:GetItem', table, { 'dynamodb:Select': ['ALL'] }),
      ),
    ).toBe(false);
  });

  it('ForAllValues: every request value must match one pattern', () => {
    const p = withCondition({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EVT#*', 'EVH#*'] } });
    expect(allowed(p, lk('EVT#1', 'EVH#2'))).toBe(true);
    const d = evaluate(p, lk('EVT#1', 'SUB#2'));
    expect(d.allowed).toBe(false);
    expect(d.reason).toContain('ForAllValues:StringLike dynamodb:LeadingKeys ["EVT#*","EVH#*"] (request: ["EVT#1","SUB#2"])');
  });

  it('ForAllValues holds when the request has no such key, or an empty one (as AWS evaluates it)', () => {
    const p = withCondition({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EVT#*'] } });
    expect(allowed(p, req('dynamodb:Scan', table))).toBe(true);
    expect(allowed(p, lk())).toBe(true);
  });

  it('ForAnyValue: one matching value is enough; an absent or empty key fails', () => {
    const p = withCondition({ 'ForAnyValue:StringEquals': { 'dynamodb:LeadingKeys': ['A'] } });
    expect(allowed(p, lk('B', 'A'))).toBe(true);
    expect(allowed(p, lk('B'))).toBe(false);
    expect(allowed(p, lk())).toBe(false);
    expect(allowed(p, req('dynamodb:Scan', table))).toBe(false);
  });

  it('ForAllValues with a negated operator: no request value may match', () => {
    const p = withCondition({ 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['SECRET#*'] } });
    expect(allowed(p, lk('A', 'B'))).toBe(true);
    expect(allowed(p, lk('A', 'SECRET#1'))).toBe(false);
  });

  it('ArnLike, ArnEquals and their negations', () => {
    const sid = (arn: string) => req('secretsmanager:GetSecretValue', '*', { 'secretsmanager:SecretId': [arn] });
    const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:app/x-AbCdEf';
    const p = (op: string, v: string) =>
      policy({ Effect: 'Allow', Action: 'secretsmanager:*', Resource: '*', Condition: { [op]: { 'secretsmanager:SecretId': v } } });
    expect(allowed(p('ArnLike', 'arn:aws:secretsmanager:*:*:secret:app/*'), sid(arn))).toBe(true);
    expect(allowed(p('ArnEquals', 'arn:aws:secretsmanager:*:*:secret:app/*'), sid(arn))).toBe(true);
    expect(allowed(p('ArnLike', 'arn:aws:secretsmanager:*:*:secret:other/*'), sid(arn))).toBe(false);
    expect(allowed(p('ArnNotLike', 'arn:aws:secretsmanager:*:*:secret:other/*'), sid(arn))).toBe(true);
    expect(allowed(p('ArnNotEquals', arn), sid(arn))).toBe(false);
  });

  it('Bool compares true/false, case-insensitively', () => {
    const p = policy({
      Effect: 'Allow',
      Action: 'secretsmanager:DeleteSecret',
      Resource: '*',
      Condition: { Bool: { 'secretsmanager:ForceDeleteWithoutRecovery': 'true' } },
    });
    const del = (v?: string) =>
      req('secretsmanager:DeleteSecret', '*', v === undefined ? {} : { 'secretsmanager:ForceDeleteWithoutRecovery': [v] });
    expect(allowed(p, del('TRUE'))).toBe(true);
    expect(allowed(p, del('false'))).toBe(false);
    expect(allowed(p, del())).toBe(false);
  });

  it('Null: "true" asks the key to be absent, "false" present', () => {
    const absent = withCondition({ Null: { 'dynamodb:LeadingKeys': 'true' } });
    const present = withCondition({ Null: { 'dynamodb:LeadingKeys': 'false' } });
    expect(allowed(absent, req('dynamodb:Scan', table))).toBe(true);
    expect(allowed(absent, lk('A'))).toBe(false);
    expect(allowed(present, lk('A'))).toBe(true);
    expect(allowed(present, req('dynamodb:Scan', table))).toBe(false);
  });

  it('an operator it cannot evaluate makes an Allow grant nothing and a Deny apply, and says so', () => {
    const allow = withCondition({ NumericLessThan: { 'dynamodb:Limit': '10' } });
    const a = evaluate(allow, lk('A'));
    expect(a.allowed).toBe(false);
    expect(a.reason).toContain('unsupported condition operator NumericLessThan');
    const deny = policy(
      { Effect: 'Allow', Action: '*', Resource: '*' },
      { Effect: 'Deny', Action: '*', Resource: '*', Condition: { DateLessThan: { 'aws:CurrentTime': '2000-01-01T00:00:00Z' } } },
    );
    const d = evaluate(deny, lk('A'));
    expect(d.allowed).toBe(false);
    expect(d.reason).toContain('unsupported condition operator DateLessThan');
  });
});

describe('authorize: every check of one request', () => {
  const p = policy({ Effect: 'Allow', Action: 'dynamodb:PutItem', Resource: table });
  it('is allowed only when every check is, and names the first denial', () => {
    const ok = authorize(p, [req('dynamodb:PutItem', table)]);
    expect(ok.allowed).toBe(true);
    const mixed = authorize(p, [req('dynamodb:PutItem', table), req('dynamodb:DeleteItem', table)]);
    expect(mixed.allowed).toBe(false);
    expect(mixed.reason).toContain('dynamodb:DeleteItem');
    expect(mixed.decisions.map((d) => d.allowed)).toEqual([true, false]);
  });

  it('refuses a request with no check at all', () => {
    expect(authorize(p, []).allowed).toBe(false);
  });
});
