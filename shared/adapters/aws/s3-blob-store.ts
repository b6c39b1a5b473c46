import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import type { BlobStore } from '../../ports';

/** What the S3 adapter needs of a client: the real `S3Client`, or a fake in tests. */
export interface S3Sender {
  send(command: unknown): Promise<unknown>;
}

export function createS3Client(): S3Client {
  return new S3Client({});
}

/** The BlobStore port over one S3 bucket (bodies stored aside: the claim check). */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Sender,
    private readonly bucket: string,
    private readonly prefix = '',
  ) {}

  async put(key: string, body: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: body, ContentType: 'application/octet-stream' }));
  }

  async get(key: string): Promise<Buffer | undefined> {
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
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }
}
