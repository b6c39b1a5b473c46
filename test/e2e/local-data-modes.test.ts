import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { startLocalProcess } from '../helpers/local-process';

/** Every directory and file under `dir`, with its permission bits. */
function modes(dir: string): { path: string; dir: boolean; mode: number }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = lstatSync(path);
    const here = { path, dir: stat.isDirectory(), mode: stat.mode & 0o777 };
    return stat.isDirectory() ? [here, ...modes(path)] : stat.isFile() ? [here] : [];
  });
}

describe('npm start keeps DATA_DIR owner-only', () => {
  let github: FakeServer;
  beforeAll(async () => {
    github = await startFakeHttp((req) =>
      req.path === '/user' ? { body: { login: 'octocat', id: 1 } } : { status: 404, body: { message: 'Not Found' } },
    );
  });
  afterAll(async () => {
    await github.close();
  });

  it('makes DATA_DIR 0700 and every file in it 0600, tightening a data dir left world-readable', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'modes-')), 'data');
    // A data dir as an older version left it: world-readable, with a world-readable file.
    mkdirSync(join(dataDir, 'secrets'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'secrets', 'old.json'), '{}', { mode: 0o644 });
    chmodSync(join(dataDir, 'secrets', 'old.json'), 0o644);

    const running = await startLocalProcess({ DATA_DIR: dataDir, PORT: '0', GITHUB_API_URL: github.url, POLL_INTERVAL_SECONDS: '3600' });
    try {
      const key = readFileSync(join(dataDir, 'local-secrets.json'), 'utf8');
      const created = await fetch(`${running.url}/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${JSON.parse(key).platformApiKey}` },
        body: JSON.stringify({ provider: 'github', token: 'ghp_modesTestToken000000000000000000000' }),
      });
      expect(created.status).toBe(201);
    } finally {
      expect(await running.stop()).toBe(0);
    }
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    const all = modes(dataDir);
    // The secret store, the embedded DynamoDB (LevelDB), the queues and the generated key are all there.
    for (const part of ['secrets', 'dynamodb', 'queues', 'local-secrets.json'])
      expect(all.some((e) => e.path === join(dataDir, part))).toBe(true);
    expect(all.filter((e) => e.dir && e.mode !== 0o700)).toEqual([]);
    expect(all.filter((e) => !e.dir && e.mode !== 0o600)).toEqual([]);
  }, 90_000);
});
