/**
 * The durable floor in a process of its own, started like the product (`node --import tsx`):
 * a bare node:http server doing HMAC verify + JSON.parse + one conditional PutItem into an
 * embedded DynamoDB of its own (dynalite in a worker thread, on disk in FLOOR_DATA_DIR), as
 * the product's is. Prints `floor at <url>` on stderr when ready. FLOOR_SECRET is the secret
 * the deliveries are signed with. Benchmarks start it with {@link startFloorProcess}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoStore } from '../../shared/adapters/aws/dynamo-store';
import { ensureTable } from '../../shared/adapters/aws/ensure-table';
import { embeddedDynamoClientConfig, startEmbeddedDynamo } from '../../shared/adapters/local/embedded-dynamo';
import { systemClock } from '../../shared/ports';
import { startFloorServer } from './floor-server';

export interface FloorProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the floor in a child process (NODE_OPTIONS passed on, e.g. to profile it too). */
export async function startFloorProcess(secret: string, env: Record<string, string> = {}): Promise<FloorProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-floor-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'floor-process.ts')], {
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      FLOOR_SECRET: secret,
      FLOOR_DATA_DIR: dataDir,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /floor at (http:\/\/\S+)/.exec(err);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`floor exited with ${code}: ${err}`)));
  });
  return {
    url,
    child,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const dynamo = await startEmbeddedDynamo({ path: join(process.env.FLOOR_DATA_DIR!, 'dynamodb') });
  const client = new DynamoDBClient(embeddedDynamoClientConfig(dynamo.endpoint));
  await ensureTable(client, 'floor');
  const floor = await startFloorServer(process.env.FLOOR_SECRET!, new DynamoStore('floor', client, systemClock));
  process.stderr.write(`floor at ${floor.url}\n`);
  process.on('SIGTERM', () => {
    void floor
      .close()
      .then(() => dynamo.close())
      .finally(() => process.exit(0));
  });
}

if (process.env.FLOOR_SECRET && process.argv[1]?.endsWith('floor-process.ts')) {
  main().catch((e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(1);
  });
}
