import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { IntegrationFunction } from './integration-function';

export interface TokenKeyProps {
  stage: string;
  /** The table's: the key lives as long as the rows it seals. */
  removalPolicy: RemovalPolicy;
}

/**
 * The KMS key that seals the GitHub App's installation tokens in the table
 * (shared/adapters/aws/kms-token-sealer.ts): symmetric, rotated yearly by KMS (old ciphertexts
 * still open). Its key policy is CDK's default, which lets the account's IAM policies decide; a
 * function is given the key only by `useKey`, with KMS_KEY_ARN and Encrypt/Decrypt on this key alone.
 */
export class TokenKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: TokenKeyProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: `agent-integrations ${props.stage}: GitHub App installation tokens kept in the table`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      // A sealed token lives an hour: nothing of worth waits on a key scheduled for deletion.
      pendingWindow: Duration.days(7),
    });
  }

  /** KMS_KEY_ARN + kms:Encrypt and kms:Decrypt on this key; the sealer calls nothing else (decision 170). */
  useKey(f: IntegrationFunction): void {
    f.setEnv('KMS_KEY_ARN', this.key.keyArn);
    f.allow(['kms:Encrypt', 'kms:Decrypt'], [this.key.keyArn]);
  }
}
