import { describe, expect, it } from 'vitest';
import { timedFetch } from '../../shared/http/timed-fetch';
import type { Fetch } from '../../shared/ports';

/** docs/security.md, section 4: the time limit wrapper of outbound calls, on stand-in fetch functions. */
describe('timedFetch', () => {
  it('ends with timeout even when the underlying fetch ignores its signal', async () => {
    const never = (() => new Promise<Response>(() => undefined)) as Fetch;
    await expect(timedFetch(never, { timeoutMs: 50, service: 'The code host' })('https://x.test/')).rejects.toMatchObject({
      code: 'timeout',
      details: { timeoutMs: 50 },
    });
  });

  it('aborts the underlying request at the limit', async () => {
    let seen: AbortSignal | undefined;
    const hang = ((_: unknown, init?: RequestInit) => {
      seen = init?.signal ?? undefined;
      return new Promise<Response>(() => undefined);
    }) as Fetch;
    await timedFetch(hang, { timeoutMs: 20, service: 'x' })('https://x.test/').catch(() => undefined);
    expect(seen?.aborted).toBe(true);
  });

  it('hands back the answer buffered, with its status and headers, and null bodies as null', async () => {
    const ok = (async () =>
      new Response('{"a":1}', { status: 201, headers: { 'content-type': 'application/json', etag: '"e"' } })) as Fetch;
    const res = await timedFetch(ok, { timeoutMs: 1000, service: 'x' })('https://x.test/');
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"e"');
    expect(await res.json()).toEqual({ a: 1 });
    // Octokit's paginate reads the answer's url.
    const located = (async () => Object.defineProperty(new Response('[]'), 'url', { value: 'https://x.test/search?page=1' })) as Fetch;
    expect((await timedFetch(located, { timeoutMs: 1000, service: 'x' })('https://x.test/')).url).toBe('https://x.test/search?page=1');
    const empty = (async () => new Response(null, { status: 204 })) as Fetch;
    expect((await timedFetch(empty, { timeoutMs: 1000, service: 'x' })('https://x.test/')).status).toBe(204);
  });

  it('refuses a body over maxBytes as upstream_error, declared or streamed', async () => {
    const big = (async () => new Response('x'.repeat(100))) as Fetch;
    await expect(timedFetch(big, { timeoutMs: 1000, service: 'x', maxBytes: 10 })('https://x.test/')).rejects.toMatchObject({
      code: 'upstream_error',
    });
    const declared = (async () => new Response('x', { headers: { 'content-length': '999' } })) as Fetch;
    await expect(timedFetch(declared, { timeoutMs: 1000, service: 'x', maxBytes: 10 })('https://x.test/')).rejects.toMatchObject({
      code: 'upstream_error',
    });
  });

  it("leaves a caller's own abort as the caller's, not a timeout", async () => {
    const hang = ((_: unknown, init?: RequestInit) =>
      new Promise<Response>((_r, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)))) as Fetch;
    const controller = new AbortController();
    const pending = timedFetch(hang, { timeoutMs: 10_000, service: 'x' })('https://x.test/', { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });
});
