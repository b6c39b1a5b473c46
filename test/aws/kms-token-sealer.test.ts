import { KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kmsTokenSealer } from '../../shared/adapters/aws/kms-token-sealer';
import { type KmsStandIn, startKmsStandIn } from './harness/kms-stand-in';

const region = 'us-east-1';
const accountId = '000000000000';
const keyArn = `arn:aws:kms:${region}:${accountId}:key/11111111-2222-3333-4444-555555555555`;
const otherKeyArn = `arn:aws:kms:${region}:${accountId}:key/66666666-7777-8888-9999-000000000000`;

let kms: KmsStandIn;
let client: KMSClient;

beforeAll(async () => {
  kms = await startKmsStandIn({ region, accountId });
  kms.createKey(keyArn);
  kms.createKey(otherKeyArn);
  client = new KMSClient({ region, endpoint: kms.url, credentials: { accessKeyId: 'a', secretAccessKey: 'b' }, maxAttempts: 1 });
});
afterAll(async () => {
  client?.destroy();
  await kms?.close();
});

describe("the KMS token sealer over KMS's wire protocol", () => {
  it('opens what it sealed under the same row, with one Encrypt and one Decrypt', async () => {
    const sealer = kmsTokenSealer(keyArn, client);
    const before = { encrypt: kms.counts.get('Encrypt') ?? 0, decrypt: kms.counts.get('Decrypt') ?? 0 };
    const sealed = await sealer.seal('ghs_token_value', 'APPTOKEN#31');
    expect(Buffer.from(sealed, 'base64').toString('utf8')).not.toContain('ghs_token_value');
    expect(await sealer.open(sealed, 'APPTOKEN#31')).toBe('ghs_token_value');
    expect(kms.counts.get('Encrypt')).toBe(before.encrypt + 1);
    expect(kms.counts.get('Decrypt')).toBe(before.decrypt + 1);
  });

  it("does not open a value under another row's context, nor one sealed under another key: undefined, not an error", async () => {
    const sealed = await kmsTokenSealer(keyArn, client).seal('ghs_token_value', 'APPTOKEN#31');
    expect(await kmsTokenSealer(keyArn, client).open(sealed, 'APPTOKEN#32')).toBeUndefined();
    expect(await kmsTokenSealer(otherKeyArn, client).open(sealed, 'APPTOKEN#31')).toBeUndefined();
  });

  it('a key KMS does not have answers unavailable, naming the service error', async () => {
    const missing = kmsTokenSealer(`arn:aws:kms:${region}:${accountId}:key/00000000-0000-0000-0000-000000000000`, client);
    await expect(missing.seal('x', 'APPTOKEN#1')).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('NotFoundException'),
    });
  });
});
