import { S3BlobStore, createS3Client, type S3Sender } from '../adapters/aws/s3-blob-store';

/** The claim-check blob adapter (S3) for `buildAwsCoreContext`; only functions that store or read bodies aside import it. */
export function s3Blobs(client?: S3Sender): (bucket: string) => S3BlobStore {
  return (bucket) => new S3BlobStore(client ?? createS3Client(), bucket);
}
