import { CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges one cdk-nag finding on `scope` and everything under it, with the reason an
 * auditor reads. cdk-nag 3 matches finding ids exactly (`AwsSolutions-IAM5[Resource::...]`),
 * so a wildcard accepted for one resource never hides a wildcard elsewhere.
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** How cdk-nag spells a resource's `Fn::GetAtt` ARN in a finding: `<LogicalId.Arn>`. */
export function arnRef(resource: IConstruct): string {
  const element = resource.node.defaultChild;
  if (!(element instanceof CfnElement)) throw new Error(`${resource.node.path} has no CloudFormation element`);
  return `<${Stack.of(resource).getLogicalId(element)}.Arn>`;
}
