import type { GetObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from '../../ports';
import { loadOnce } from '../../domain/load-once';
import { sdkClientDefaults, withoutSdkLogging } from './sdk-client-defaults';

/** What the S3 adapter needs of a client: the real `S3Client`, or a fake in tests. */
export interface S3Sender {
  send(command: unknown): Promise<unknown>;
}

/**
 * The S3 SDK, loaded on first use: bodies are stored aside only when they outgrow an SQS
 * message, which is rare, and S3 is the largest client to load, so the intake and dispatch
 * functions do not pay for it on every cold start (bench/cold-start.ts).
 */
const loadS3 = loadOnce(() => import('./s3-commands'));

/** An S3 client that is created, with the SDK, on its first call. */
export function createS3Client(): S3Sender {
  let client: S3Client | undefined;
  return {
    async send(command) {
      const { S3Client } = await loadS3();
      client ??= withoutSdkLogging(new S3Client({ ...sdkClientDefaults }));
      return client.send(command as Parameters<S3Client['send']>[0]);
    },
  };
}

/** The BlobStore port over one S3 bucket (bodies stored aside: the claim check). */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Sender,
    private readonly bucket: string,
    private readonly prefix = '',
  ) {}

  async put(key: string, body: Buffer): Promise<void> {
    const { PutObjectCommand } = await loadS3();
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: body, ContentType: 'application/octet-stream' }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    const { GetObjectCommand } = await loadS3();
    try {
      const out = (await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }))) as GetObjectCommandOutput;
      if (!out.Body) return undefined;
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (e) {
      if (e instanceof Error && (e.name === 'NoSuchKey' || e.name === 'NotFound')) return undefined;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    const { DeleteObjectCommand } = await loadS3();
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }
}
