/**
 * The parts of the S3 SDK the blob store uses, in a module of their own so that
 * s3-blob-store.ts can load them on first use and the bundler still keeps only these
 * (a dynamic import of `@aws-sdk/client-s3` itself would keep every S3 command).
 */
export { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
