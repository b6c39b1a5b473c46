import { DecryptCommand, EncryptCommand, KMSClient, type DecryptCommandOutput, type EncryptCommandOutput } from '@aws-sdk/client-kms';
import { AppError } from '../../domain/errors';
import type { TokenSealer } from '../../ports/token-sealer';
import { sdkClientDefaults, withoutSdkLogging } from './sdk-client-defaults';

/** What the KMS sealer needs of a client: the real one, or a fake in tests. */
export interface KmsSender {
  send(command: unknown): Promise<unknown>;
}

export function createKmsClient(): KMSClient {
  return withoutSdkLogging(new KMSClient({ ...sdkClientDefaults }));
}

/** KMS's answers that mean "this ciphertext does not open here", not "the service failed". */
const unopenable = new Set(['InvalidCiphertextException', 'IncorrectKeyException']);

/**
 * Seals with KMS `Encrypt` under one symmetric key (decision 170): the values are tokens of at
 * most 1 KB, well inside Encrypt's 4 KB, and each is sealed once per mint. The row's key is the
 * encryption context (`{ row }`): KMS binds it into the ciphertext and checks it on `Decrypt`,
 * so a value moved to another row does not open; CloudTrail logs it with every call, naming the
 * installation whose token was read. Decrypt names the key too, so a ciphertext of another key
 * is refused rather than decrypted under it.
 */
export function kmsTokenSealer(keyArn: string, client: KmsSender = createKmsClient()): TokenSealer {
  return {
    async seal(plaintext, context) {
      const out = (await call(() =>
        client.send(new EncryptCommand({ KeyId: keyArn, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: { row: context } })),
      )) as EncryptCommandOutput;
      if (!out.CiphertextBlob) throw new AppError('unavailable', 'KMS Encrypt answered without a ciphertext');
      return Buffer.from(out.CiphertextBlob).toString('base64');
    },
    async open(sealed, context) {
      let out: DecryptCommandOutput;
      try {
        out = (await client.send(
          new DecryptCommand({ KeyId: keyArn, CiphertextBlob: Buffer.from(sealed, 'base64'), EncryptionContext: { row: context } }),
        )) as DecryptCommandOutput;
      } catch (e) {
        if (e instanceof Error && unopenable.has(e.name)) return undefined;
        throw unavailable(e);
      }
      return out.Plaintext ? Buffer.from(out.Plaintext).toString('utf8') : undefined;
    },
  };
}

async function call<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    throw unavailable(e);
  }
}

function unavailable(e: unknown): AppError {
  const name = e instanceof Error ? e.name : 'Error';
  const message = e instanceof Error ? e.message : String(e);
  return new AppError('unavailable', `KMS did not answer the token's encryption (${name}): ${message}`, { service: 'kms', error: name });
}
