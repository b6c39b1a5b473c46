/**
 * Evaluation of a role's identity policies for one authorization check, as AWS does within one
 * account with no resource policy, boundary, session policy or SCP in play: an explicit Deny
 * wins, then any Allow, else the request is implicitly denied.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic_policy-eval-denyallow.html
 * Pure: no network, no clock.
 */
import type { AuthzCheck } from './classify-request';
import type { PolicyStatement, SourcedStatement } from './template-policies';

export interface PolicySet {
  roleName: string;
  statements: ReadonlyArray<PolicyStatement | SourcedStatement>;
}

export interface Decision {
  allowed: boolean;
  check: AuthzCheck;
  /** Names the role, the action and the resource; and the statement that decided, or the conditions that failed. */
  reason: string;
}

const escapeRe = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** IAM wildcard match over the whole string: `*` any run, `?` one character. */
export function wildcardMatch(pattern: string, value: string, caseInsensitive = false): boolean {
  const re = escapeRe(pattern).replace(/\*/g, '[\\s\\S]*').replace(/\?/g, '[\\s\\S]');
  return new RegExp(`^${re}$`, caseInsensitive ? 'i' : '').test(value);
}

/**
 * ARN match for Resource and the Arn* operators: wildcards work within a colon-separated
 * segment, and a `*` that ends a segment may extend across colons ("If the * wildcard is the
 * last character of a resource ARN segment, it can expand to match beyond the colon boundaries").
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html
 */
export function arnMatch(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') re += i === pattern.length - 1 || pattern[i + 1] === ':' ? '[\\s\\S]*' : '[^:]*';
    else if (c === '?') re += '[^:]';
    else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`).test(arn);
}

const list = (v: unknown): string[] => (v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

/** Actions are matched case-insensitively (`dynamodb:getitem` names dynamodb:GetItem). */
function actionMatches(s: PolicyStatement, action: string): boolean {
  if (s.Action !== undefined) return list(s.Action).some((p) => wildcardMatch(p, action, true));
  if (s.NotAction !== undefined) return !list(s.NotAction).some((p) => wildcardMatch(p, action, true));
  return false;
}

/** ARNs are matched case-sensitively. */
function resourceMatches(s: PolicyStatement, resource: string): boolean {
  if (s.Resource !== undefined) return list(s.Resource).some((p) => arnMatch(p, resource));
  if (s.NotResource !== undefined) return !list(s.NotResource).some((p) => arnMatch(p, resource));
  return false;
}

type BaseOp = (policy: string, value: string) => boolean;

const baseOps: Record<string, { match: BaseOp; negated: boolean }> = {
  StringEquals: { match: (p, v) => p === v, negated: false },
  StringNotEquals: { match: (p, v) => p === v, negated: true },
  StringEqualsIgnoreCase: { match: (p, v) => p.toLowerCase() === v.toLowerCase(), negated: false },
  StringNotEqualsIgnoreCase: { match: (p, v) => p.toLowerCase() === v.toLowerCase(), negated: true },
  StringLike: { match: (p, v) => wildcardMatch(p, v), negated: false },
  StringNotLike: { match: (p, v) => wildcardMatch(p, v), negated: true },
  // ArnEquals and ArnLike behave the same: both take wildcards.
  ArnEquals: { match: arnMatch, negated: false },
  ArnLike: { match: arnMatch, negated: false },
  ArnNotEquals: { match: arnMatch, negated: true },
  ArnNotLike: { match: arnMatch, negated: true },
  Bool: { match: (p, v) => p.toLowerCase() === v.toLowerCase(), negated: false },
};

interface ParsedOperator {
  qualifier?: 'ForAllValues' | 'ForAnyValue';
  base: string;
  ifExists: boolean;
}

function parseOperator(op: string): ParsedOperator | undefined {
  const m = /^(?:(ForAllValues|ForAnyValue):)?([A-Za-z]+?)(IfExists)?$/.exec(op);
  if (!m?.[2]) return undefined;
  const base = m[2];
  if (base !== 'Null' && !baseOps[base]) return undefined;
  if (base === 'Null' && (m[1] || m[3])) return undefined;
  return { ...(m[1] ? { qualifier: m[1] as ParsedOperator['qualifier'] } : {}), base, ifExists: m[3] !== undefined };
}

/** Condition keys are case-insensitive; values are not. */
function contextValues(check: AuthzCheck, key: string): string[] | undefined {
  const want = key.toLowerCase();
  for (const [k, v] of Object.entries(check.conditions)) if (k.toLowerCase() === want) return v;
  return undefined;
}

/**
 * One operator on one key. Several policy values are ORed.
 * - A key absent from the request: false, except for negated operators (StringNotLike, ...),
 *   `...IfExists` (true) and Null.
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
 * - ForAnyValue: true when at least one request value satisfies the operator; false when the key is
 *   absent or empty.
 * - ForAllValues: true when every request value satisfies the operator, and also when the key is
 *   absent or empty. That is a security trap: an Allow with ForAllValues:StringLike on
 *   dynamodb:LeadingKeys allows a request that sets no leading keys at all (a Scan). The stack never
 *   grants Scan, and the classifier always sets LeadingKeys on item operations, so here it only
 *   matters for a policy that grants a key-less action under such a condition.
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition_examples-multi-valued-context-keys.html
 */
function conditionHolds(op: ParsedOperator, policyValues: string[], requestValues: string[] | undefined): boolean {
  const absent = requestValues === undefined || requestValues.length === 0;
  if (op.base === 'Null') {
    // Null: "true" means the key must be absent, "false" that it must be present.
    return policyValues.some((p) => (p.toLowerCase() === 'true' ? absent : !absent));
  }
  const base = baseOps[op.base] as { match: BaseOp; negated: boolean };
  // For a negated operator a value "satisfies" it when it matches none of the policy values.
  const satisfies = (v: string) => policyValues.some((p) => base.match(p, v)) !== base.negated;
  if (op.qualifier === 'ForAllValues') return absent || (requestValues as string[]).every(satisfies);
  if (op.qualifier === 'ForAnyValue') return !absent && (requestValues as string[]).some(satisfies);
  if (absent) return op.ifExists || base.negated;
  // A single-valued operator on a request with several values: a positive operator holds when any
  // value matches; a negated one only when no value matches.
  const values = requestValues as string[];
  return base.negated ? values.every(satisfies) : values.some(satisfies);
}

interface ConditionResult {
  holds: boolean;
  /** What failed, or the operator that is not understood. */
  failed: string[];
  unknownOperator?: string;
}

function evaluateConditions(s: PolicyStatement, check: AuthzCheck): ConditionResult {
  const failed: string[] = [];
  for (const [opName, keys] of Object.entries(s.Condition ?? {})) {
    const op = parseOperator(opName);
    if (!op) return { holds: false, failed: [`unsupported condition operator ${opName}`], unknownOperator: opName };
    for (const [key, raw] of Object.entries(keys)) {
      const policyValues = list(raw);
      const requestValues = contextValues(check, key);
      if (!conditionHolds(op, policyValues, requestValues))
        failed.push(
          `${opName} ${key} ${JSON.stringify(policyValues)} (request: ${requestValues === undefined ? 'no such key' : JSON.stringify(requestValues)})`,
        );
    }
  }
  return { holds: failed.length === 0, failed };
}

function describe(s: PolicyStatement, index: number): string {
  const source = 'source' in s && typeof s.source === 'string' ? s.source : 'policy';
  return `${source} statement #${index}${s.Sid ? ` (${s.Sid})` : ''}`;
}

/** One check against the role's statements: explicit Deny, else Allow, else implicit deny. */
export function evaluate(policy: PolicySet, check: AuthzCheck): Decision {
  const who = `role ${policy.roleName} ${check.action} on ${check.resource}`;
  const applicable = policy.statements
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => actionMatches(s, check.action) && resourceMatches(s, check.resource));

  for (const { s, i } of applicable.filter(({ s }) => s.Effect === 'Deny')) {
    const c = evaluateConditions(s, check);
    // A Deny whose condition cannot be read is taken as applying: failing closed.
    if (c.holds || c.unknownOperator)
      return {
        allowed: false,
        check,
        reason: `${who}: explicitly denied by ${describe(s, i)}${c.unknownOperator ? ` (${c.failed.join('; ')})` : ''}`,
      };
  }
  const misses: string[] = [];
  for (const { s, i } of applicable.filter(({ s }) => s.Effect === 'Allow')) {
    const c = evaluateConditions(s, check);
    if (c.holds) return { allowed: true, check, reason: `${who}: allowed by ${describe(s, i)}` };
    misses.push(`${describe(s, i)} matches the action and resource but its condition failed: ${c.failed.join('; ')}`);
  }
  return {
    allowed: false,
    check,
    reason: `${who}: implicitly denied: ${misses.length ? misses.join(' | ') : 'no Allow statement names this action on this resource'}`,
  };
}

/** Every check of one request; allowed only when each one is (an empty list is refused). */
export function authorize(policy: PolicySet, checks: readonly AuthzCheck[]): { allowed: boolean; reason: string; decisions: Decision[] } {
  if (checks.length === 0)
    return { allowed: false, reason: `role ${policy.roleName}: a request with no authorization check is refused`, decisions: [] };
  const decisions = checks.map((c) => evaluate(policy, c));
  const denied = decisions.find((d) => !d.allowed);
  return { allowed: !denied, reason: denied ? denied.reason : decisions.map((d) => d.reason).join('; '), decisions };
}
