import { connect, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import type { ServerLimits } from '../../local/server-limits';

const key = 'limits-platform-key-0123456789abcdef0123';

async function start(
  limits: Partial<ServerLimits> = {},
  env: Record<string, string> = {},
): Promise<{ rt: LocalRuntime; port: number; dispose(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'limits-'));
  const rt = await startLocalRuntime({
    env: {
      DATA_DIR: dataDir,
      PORT: '0',
      PLATFORM_API_KEY: key,
      DISPATCH_SIGNING_SECRET: 's'.repeat(40),
      POLL_INTERVAL_SECONDS: '3600',
      LOG_LEVEL: 'SILENT',
      ...env,
    },
    write: () => undefined,
    background: false,
    limits,
  });
  return {
    rt,
    port: Number(new URL(rt.url).port),
    async dispose() {
      await rt.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server's answer head (status line + headers) has arrived, with its status. */
  status(): Promise<number>;
  /** Resolves once the server has closed the connection. */
  closed: Promise<void>;
}

/** A raw client, so a test controls exactly which bytes are sent, and when (never the body of a refused request). */
async function rawConnect(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  const socket = connect({ port, host });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let data = '';
  const waiters: (() => void)[] = [];
  socket.on('data', (d: Buffer) => {
    data += d.toString('latin1');
    for (const w of waiters.splice(0)) w();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  return {
    socket,
    received: () => data,
    closed,
    async status() {
      for (;;) {
        // A final answer, not an interim `100 Continue`.
        const m = /HTTP\/1\.1 ([2-5]\d\d) [^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n/.exec(data);
        if (m?.[1]) return Number(m[1]);
        if (socket.destroyed) throw new Error(`closed without an answer; received: ${JSON.stringify(data)}`);
        await Promise.race([new Promise<void>((r) => waiters.push(r)), closed]);
      }
    },
  };
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
/** The code host's headers (the signature is checked only once the body is read). */
const deliveryHeaders = ['X-GitHub-Event: issues', 'X-GitHub-Delivery: d-1', `X-Hub-Signature-256: sha256=${'0'.repeat(64)}`];

describe('local runtime: refuses before reading, limits per route, cuts stalled clients', () => {
  let server: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    // Short timeouts injected so the stalled-client cases end quickly; the defaults are 10 s / 30 s.
    server = await start({ headersTimeoutMs: 400, requestTimeoutMs: 600, checkIntervalMs: 50 });
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('listens on the loopback only by default', async () => {
    expect(new URL(server.rt.url).hostname).toBe('127.0.0.1');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal);
    if (external) {
      await expect(rawConnect(server.port, external.address)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    }
    const health = await fetch(`${server.rt.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    expect(health.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps an idle keep-alive connection open past the request timeouts and says for how long', async () => {
    const c = await rawConnect(server.port);
    const answers = () => c.received().match(/HTTP\/1\.1 200/g)?.length ?? 0;
    const answered = (n: number) =>
      new Promise<void>((r, reject) => {
        const look = () =>
          answers() >= n ? r() : c.socket.destroyed ? reject(new Error(`closed: ${c.received()}`)) : setTimeout(look, 10);
        look();
      });
    c.socket.write(head(['GET /healthz HTTP/1.1', 'Host: x']));
    await answered(1);
    // A proxy or load balancer in front keeps idle connections 60 s: the server keeps them longer.
    expect(c.received()).toMatch(/\r\nKeep-Alive: timeout=65\r\n/i);
    // Idle past the header and request timeouts (400 / 600 ms here), the connection is still there to reuse.
    await new Promise((r) => setTimeout(r, 900));
    c.socket.write(head(['GET /healthz HTTP/1.1', 'Host: x']));
    await answered(2);
    c.socket.destroy();
  });

  it('answers a protected route without a key with 401 before the body is sent', async () => {
    const c = await rawConnect(server.port);
    c.socket.write(head(['POST /subscriptions HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 5000000']));
    expect(await c.status()).toBe(401);
    expect(c.received()).toContain('"unauthorized"');
    await c.closed; // the unread body is never read: the connection is closed instead
  });

  it('keeps the connection of a refused request with a small body (thrown away, never held)', async () => {
    const c = await rawConnect(server.port);
    c.socket.write(`${head(['POST /subscriptions HTTP/1.1', 'Host: x', 'Content-Length: 2'])}{}`);
    expect(await c.status()).toBe(401);
    c.socket.write(head(['GET /healthz HTTP/1.1', 'Host: x']));
    await new Promise<void>((r) => {
      const look = () => (/HTTP\/1\.1 200/.test(c.received()) ? r() : setTimeout(look, 10));
      look();
    });
    c.socket.destroy();
  });

  it('refuses a webhook delivery without the code host headers before its body is sent', async () => {
    const c = await rawConnect(server.port);
    c.socket.write(
      head([
        `POST /webhooks/github/ep_${'a'.repeat(26)} HTTP/1.1`,
        'Host: x',
        'X-GitHub-Event: issues',
        'X-GitHub-Delivery: d-1',
        'Content-Length: 5000000',
      ]),
    );
    expect(await c.status()).toBe(401);
    expect(c.received()).toContain('"invalid_signature"');
    await c.closed;
  });

  it('answers an unknown route with 404 before the body is sent', async () => {
    const c = await rawConnect(server.port);
    c.socket.write(head(['POST /nope HTTP/1.1', 'Host: x', 'Content-Length: 5000000']));
    expect(await c.status()).toBe(404);
    await c.closed;
  });

  it('refuses an oversize Content-Length with 413 before the body is sent, per route', async () => {
    const platform = await rawConnect(server.port);
    platform.socket.write(
      head(['POST /subscriptions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, `Content-Length: ${256 * 1024 + 1}`]),
    );
    expect(await platform.status()).toBe(413);
    expect(platform.received()).toContain('"payload_too_large"');
    await platform.closed;

    // The webhook route takes up to 6 MB (Lambda's limit), anonymous as it is; past that, 413 unread.
    const webhook = await rawConnect(server.port);
    webhook.socket.write(
      head([
        `POST /webhooks/github/ep_${'a'.repeat(26)} HTTP/1.1`,
        'Host: x',
        ...deliveryHeaders,
        `Content-Length: ${6 * 1024 * 1024 + 1}`,
      ]),
    );
    expect(await webhook.status()).toBe(413);
    await webhook.closed;
  });

  it('cuts a chunked body at the route limit with 413', async () => {
    const c = await rawConnect(server.port);
    c.socket.write(head(['POST /subscriptions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, 'Transfer-Encoding: chunked']));
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 5 && !c.socket.destroyed; i++) c.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(await c.status()).toBe(413);
    await c.closed;
  });

  it('asks for the body of an admitted request only (Expect: 100-continue)', async () => {
    const refused = await rawConnect(server.port);
    refused.socket.write(head(['POST /subscriptions HTTP/1.1', 'Host: x', 'Expect: 100-continue', 'Content-Length: 100']));
    expect(await refused.status()).toBe(401);
    expect(refused.received()).not.toContain('100 Continue');
    await refused.closed; // the declared body will not come: the connection cannot be reused

    const admitted = await rawConnect(server.port);
    admitted.socket.write(
      head(['POST /subscriptions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, 'Expect: 100-continue', 'Content-Length: 2']),
    );
    await new Promise<void>((r) => {
      const look = () => (admitted.received().includes('100 Continue') ? r() : setTimeout(look, 10));
      look();
    });
    admitted.socket.write('{}');
    expect(await admitted.status()).toBe(400); // admitted: the body is read and validated
    admitted.socket.destroy();
  });

  it('bounds the ids of the operator routes (400 naming the field, not a store failure)', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${server.rt.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
    const trigger = await post('/admin/trigger', { trigger: 'github.new_issue', subscriptionId: 's'.repeat(3000) });
    expect(trigger.status).toBe(400);
    expect(JSON.stringify(await trigger.json())).toContain('subscriptionId');
    const redrive = await post('/admin/dlq/redrive', { ids: ['x'.repeat(129)] });
    expect(redrive.status).toBe(400);
  });

  it('cuts a stalled upload (slowloris) at the request timeout', async () => {
    const c = await rawConnect(server.port);
    c.socket.write(head(['POST /subscriptions HTTP/1.1', 'Host: x', `Authorization: Bearer ${key}`, 'Content-Length: 100']));
    c.socket.write('{"conn'); // and never the rest
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it('cuts a client that never finishes its headers', async () => {
    const c = await rawConnect(server.port);
    c.socket.write('POST /subscriptions HTTP/1.1\r\nHost: x\r\n');
    await c.closed;
  });
});

describe('local runtime: connection cap and HOST', () => {
  it('closes connections past the cap', async () => {
    const server = await start({ maxConnections: 2 });
    try {
      const held = [await rawConnect(server.port), await rawConnect(server.port)];
      held[0]?.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await held[0]?.status()).toBe(200); // both held connections are accepted
      const third = await rawConnect(server.port);
      await third.closed;
      expect(third.received()).toBe('');
      for (const c of held) c.socket.destroy();
    } finally {
      await server.dispose();
    }
  });

  it('holds at most maxBufferedBytes of bodies in all: the upload that would pass it gets 503', async () => {
    const server = await start({ maxBufferedBytes: 1024 * 1024 });
    const uploads: RawConnection[] = [];
    try {
      // Two anonymous uploads of 600 KB each (under the webhook route's 6 MB), both stalled before their end.
      for (let i = 0; i < 2; i++) {
        const c = await rawConnect(server.port);
        c.socket.write(
          head([`POST /webhooks/github/ep_${'a'.repeat(26)} HTTP/1.1`, 'Host: x', ...deliveryHeaders, `Content-Length: ${700 * 1024}`]),
        );
        c.socket.write(Buffer.alloc(600 * 1024, 0x20));
        uploads.push(c);
      }
      const answers = await Promise.race(uploads.map(async (c) => ({ status: await c.status(), text: c.received() })));
      expect(answers.status).toBe(503);
      expect(answers.text).toContain('"unavailable"');
    } finally {
      for (const c of uploads) c.socket.destroy();
      await server.dispose();
    }
  });

  it('listens where HOST says', async () => {
    const server = await start({}, { HOST: '0.0.0.0' });
    try {
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal);
      const c = await rawConnect(server.port, external?.address ?? '127.0.0.1');
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(await c.status()).toBe(200);
      c.socket.destroy();
    } finally {
      await server.dispose();
    }
  });
});
