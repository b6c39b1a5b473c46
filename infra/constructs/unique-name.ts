import { Aws, Fn } from 'aws-cdk-lib';

/**
 * `<base>-<8 hex>`, the hex being the first group of this stack's id (a UUID CloudFormation
 * gives each stack it creates). A fixed name of a retained resource outlives a rolled-back
 * first deploy or a `cdk destroy`, and the next create then fails with "already exists";
 * a name of this form is new with each stack created, yet known before the resource exists.
 * Use it only where a name is needed before the resource exists (the dispatch queue's ARN
 * in its dead-letter queue's redrive-allow policy); elsewhere let CloudFormation name it.
 */
export function stackUniqueName(base: string): string {
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return Fn.join('-', [base, Fn.select(0, Fn.split('-', stackUuid))]);
}
