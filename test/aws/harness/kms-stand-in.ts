import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { fault, type Json11Ops, serveJson11 } from './secrets-manager-emulator';

/**
 * KMS over its wire protocol (JSON 1.1, `X-Amz-Target: TrentService.<Op>`, binary fields as
 * base64), in memory, for the AWS-mode suite, written from the KMS API reference: Encrypt,
 * Decrypt and GenerateDataKey on symmetric keys. The encryption context is bound into every
 * ciphertext as additional authenticated data and must match exactly on Decrypt
 * (InvalidCiphertextException otherwise); a Decrypt naming another key than the ciphertext's
 * answers IncorrectKeyException; a plaintext over 4,096 bytes answers ValidationException; an
 * unknown key NotFoundException. The ciphertext names its key (as KMS's does), then carries an
 * AES-256-GCM sealing under the key's own material; it is not KMS's format, and nothing may parse it.
 */
export interface KmsStandIn {
  url: string;
  /** Makes a key under this ARN (CloudFormation would have: the template's AWS::KMS::Key). */
  createKey(arn: string): void;
  /** How many calls each operation answered (successes and errors alike): what KMS bills per request. */
  counts: Map<string, number>;
  close(): Promise<void>;
}

const maxPlaintext = 4096;

export async function startKmsStandIn(o: { region: string; accountId: string }): Promise<KmsStandIn> {
  const keys = new Map<string, Buffer>();
  const counts = new Map<string, number>();

  /** A key by its ARN or its bare key id (aliases are not served). */
  const keyArnOf = (keyId: unknown): string => {
    if (typeof keyId !== 'string' || keyId === '') throw fault('ValidationException', 'KeyId is required');
    const arn = keyId.startsWith('arn:') ? keyId : `arn:aws:kms:${o.region}:${o.accountId}:key/${keyId}`;
    if (!keys.has(arn)) throw fault('NotFoundException', `Key '${arn}' does not exist`);
    return arn;
  };
  const seal = (arn: string, plaintext: Buffer, context: unknown): Buffer => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keys.get(arn) as Buffer, iv);
    cipher.setAAD(contextBytes(context));
    const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const name = Buffer.from(arn, 'utf8');
    return Buffer.concat([Buffer.from([1, name.length]), name, iv, cipher.getAuthTag(), data]);
  };

  const ops: Json11Ops = {
    Encrypt(input) {
      const arn = keyArnOf(input.KeyId);
      const plaintext = blob(input.Plaintext, 'Plaintext');
      if (plaintext.length < 1 || plaintext.length > maxPlaintext)
        throw fault('ValidationException', `Plaintext must be 1 to ${maxPlaintext} bytes long`);
      return {
        CiphertextBlob: seal(arn, plaintext, input.EncryptionContext).toString('base64'),
        KeyId: arn,
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    Decrypt(input) {
      const c = blob(input.CiphertextBlob, 'CiphertextBlob');
      const nameLength = c[1] ?? 0;
      const arn = c[0] === 1 ? c.subarray(2, 2 + nameLength).toString('utf8') : '';
      const key = keys.get(arn);
      if (!key || c.length < 2 + nameLength + 28) throw fault('InvalidCiphertextException', '');
      if (input.KeyId !== undefined && keyArnOf(input.KeyId) !== arn)
        throw fault('IncorrectKeyException', 'The key ID in the request does not identify a KMS key that can perform this operation.');
      const at = 2 + nameLength;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, c.subarray(at, at + 12), { authTagLength: 16 });
        decipher.setAAD(contextBytes(input.EncryptionContext));
        decipher.setAuthTag(c.subarray(at + 12, at + 28));
        const plaintext = Buffer.concat([decipher.update(c.subarray(at + 28)), decipher.final()]);
        return { KeyId: arn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
      } catch {
        throw fault('InvalidCiphertextException', '');
      }
    },
    GenerateDataKey(input) {
      const arn = keyArnOf(input.KeyId);
      const spec = input.KeySpec;
      const bytes = input.NumberOfBytes;
      if ((spec === undefined) === (bytes === undefined))
        throw fault('ValidationException', 'Specify either KeySpec or NumberOfBytes, not both and not neither');
      const size = spec === 'AES_256' ? 32 : spec === 'AES_128' ? 16 : typeof bytes === 'number' && bytes >= 1 && bytes <= 1024 ? bytes : 0;
      if (size === 0) throw fault('ValidationException', 'KeySpec must be AES_256 or AES_128, NumberOfBytes 1 to 1024');
      const plaintext = randomBytes(size);
      return {
        CiphertextBlob: seal(arn, plaintext, input.EncryptionContext).toString('base64'),
        Plaintext: plaintext.toString('base64'),
        KeyId: arn,
      };
    },
  };

  const onCall = (op: string) => void counts.set(op, (counts.get(op) ?? 0) + 1);
  const { server, port } = await serveJson11('TrentService', ops, { internalError: 'KMSInternalException', internalStatus: 500, onCall });
  return {
    url: `http://127.0.0.1:${port}`,
    createKey: (arn) => void keys.set(arn, randomBytes(32)),
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The context as bound into a ciphertext: its pairs in key order, so the same pairs in any order match (as KMS treats them). */
function contextBytes(context: unknown): Buffer {
  if (context === undefined) return Buffer.alloc(0);
  if (typeof context !== 'object' || context === null || Array.isArray(context))
    throw fault('ValidationException', 'EncryptionContext must be a map of strings');
  const pairs = Object.entries(context as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (pairs.some(([, v]) => typeof v !== 'string')) throw fault('ValidationException', 'EncryptionContext values must be strings');
  return Buffer.from(JSON.stringify(pairs), 'utf8');
}

function blob(value: unknown, field: string): Buffer {
  if (typeof value !== 'string') throw fault('ValidationException', `${field} is required (base64)`);
  return Buffer.from(value, 'base64');
}
