/**
 * Which item families (partition-key patterns, IAM `StringLike` syntax) each function role
 * may touch in the table. The one declaration both the CDK stack (a `dynamodb:LeadingKeys`
 * condition on the role's item actions) and the recording test
 * (test/integration/table-access-by-role.test.ts) read: a flow that touches a family not
 * listed here fails that test, rather than failing in production with AccessDenied.
 * A role absent here keeps unconditioned item access (its flows are not yet recorded).
 * Patterns match the table's `pk`, and for a Query on an index, that index's partition key.
 */
export const tableAccessByRole: Readonly<Record<string, readonly string[]>> = {
  // Dispatch claims only (shared/dispatch/dispatch-claim.ts).
  dispatch: ['EVT#*'],
};

/** True when `value` matches an IAM StringLike pattern (`*` any run, `?` one character). */
export function matchesLeadingKey(pattern: string, value: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 's').test(value);
}
