import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * Serves the real DynamoDB wire protocol in-process with dynalite: persisted on disk
 * (LevelDB) under `path`, or in memory when `path` is omitted (tests).
 */
export async function startEmbeddedDynamo(options: { path?: string; port?: number } = {}): Promise<EmbeddedDynamo> {
  const server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Client settings for the embedded server: fixed local credentials, no AWS account needed. */
export function embeddedDynamoClientConfig(endpoint: string) {
  return {
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  };
}
