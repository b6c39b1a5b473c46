import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeListener } from '../../shared/http/node-http';
import type { HttpResponse } from '../../shared/http/types';

let server: Server | undefined;
afterEach(() => server?.close());

/** Serves `answer` through the product's node adapter and returns the raw bytes of one exchange. */
async function rawExchange(answer: HttpResponse, request = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'): Promise<string> {
  server = createServer(
    nodeListener(
      async () => answer,
      () => undefined,
    ),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      raw += d;
    });
    socket.on('end', () => resolve(raw));
    socket.on('error', reject);
  });
}

const headOf = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n')).toLowerCase();
const bodyOf = (raw: string) => raw.slice(raw.indexOf('\r\n\r\n') + 4);

describe('answers of the node HTTP adapter', () => {
  it('carry a Content-Length of the body in bytes, not chunked framing', async () => {
    const raw = await rawExchange({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"name":"café"}' });
    expect(headOf(raw)).toContain('content-length: 16');
    expect(headOf(raw)).not.toContain('transfer-encoding');
    expect(Buffer.from(bodyOf(raw), 'latin1').toString('utf8')).toBe('{"name":"café"}');
  });

  it('send a Buffer body whole, with its length', async () => {
    const raw = await rawExchange({ status: 200, body: Buffer.from([1, 2, 3, 4, 5]) });
    expect(headOf(raw)).toContain('content-length: 5');
    expect([...Buffer.from(bodyOf(raw), 'latin1')]).toEqual([1, 2, 3, 4, 5]);
  });

  it('keep a Content-Length the handler set itself', async () => {
    const raw = await rawExchange({ status: 200, headers: { 'Content-Length': '2' }, body: 'ok' });
    expect(headOf(raw).match(/content-length/g)).toHaveLength(1);
    expect(bodyOf(raw)).toBe('ok');
  });

  it('give a 204 neither a Content-Length nor a body', async () => {
    const raw = await rawExchange({ status: 204 });
    expect(headOf(raw)).toMatch(/^http\/1\.1 204/);
    expect(headOf(raw)).not.toContain('content-length');
    expect(headOf(raw)).not.toContain('transfer-encoding');
    expect(bodyOf(raw)).toBe('');
  });

  it('answer an empty body with Content-Length 0', async () => {
    const raw = await rawExchange({ status: 202 });
    expect(headOf(raw)).toContain('content-length: 0');
    expect(bodyOf(raw)).toBe('');
  });
});
