import { GetSecretValueCommand, SecretsManagerClient, type GetSecretValueCommandOutput } from '@aws-sdk/client-secrets-manager';
import { sdkClientDefaults, withoutSdkLogging } from './sdk-client-defaults';

/** What the Secrets Manager adapters need of a client: the real one, or a fake in tests. */
export interface SecretsManagerSender {
  send(command: unknown): Promise<unknown>;
}

export function createSecretsManagerClient(): SecretsManagerClient {
  return withoutSdkLogging(new SecretsManagerClient({ ...sdkClientDefaults }));
}

/** A secret that does not exist, or is scheduled for deletion, reads as absent. */
export function isSecretGone(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return e.name === 'ResourceNotFoundException' || (e.name === 'InvalidRequestException' && /deletion/i.test(e.message));
}

/** The current value of a secret by name or ARN, or undefined when there is none. */
export async function readSecretString(client: SecretsManagerSender, secretId: string): Promise<string | undefined> {
  try {
    const out = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))) as GetSecretValueCommandOutput;
    if (out.SecretString !== undefined) return out.SecretString;
    return out.SecretBinary ? Buffer.from(out.SecretBinary).toString('utf8') : undefined;
  } catch (e) {
    if (isSecretGone(e)) return undefined;
    throw e;
  }
}
