import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBoundedBody, readBoundedJson } from '../../shared/http/bounded-body';
import { guardedFetch } from '../../shared/http/guarded-fetch';
import { rssGrowthMiB, startBombServer, type BombEncoding, type BombServer } from '../helpers/compression-bomb';

/**
 * The one reader of upstream answers counts decoded bytes and stops at its limit: a small
 * compressed answer that inflates to hundreds of MiB is refused without the process holding
 * it. Both decoders are covered: the platform fetch's (configured origins) and the guarded
 * fetch's own (a caller-chosen host).
 */
const limit = { maxBytes: 1024 * 1024, service: 'the code host' };

describe.each<[BombEncoding, number]>([
  ['gzip', 1024],
  ['deflate', 128],
  ['br', 128],
])('an answer in %s that inflates to %i MiB', (encoding, decodedMiB) => {
  let bomb: BombServer;
  beforeAll(async () => {
    bomb = await startBombServer({ encoding, decodedMiB });
  });
  afterAll(async () => {
    await bomb.close();
  });

  it('is refused at the limit through the platform fetch, the memory barely moving', async () => {
    const { growthMiB, result } = await rssGrowthMiB(async () => readBoundedBody(await fetch(`${bomb.url}/x`), limit));
    expect(result).toMatchObject({ code: 'upstream_error', details: { limitBytes: limit.maxBytes } });
    expect((result as Error).message).toContain('larger than 1048576 bytes');
    expect(growthMiB).toBeLessThan(100);
  });

  it('is refused at the limit through the guarded fetch of a caller-chosen host', async () => {
    const guarded = guardedFetch({
      trustedOrigins: [],
      allowLoopback: true,
      allowedPrivateHosts: [],
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const url = bomb.url.replace('127.0.0.1', 'ghe.test');
    const { growthMiB, result } = await rssGrowthMiB(async () => readBoundedJson(await guarded(`${url}/x`), limit));
    expect(result).toMatchObject({ code: 'upstream_error', details: { limitBytes: limit.maxBytes } });
    expect(growthMiB).toBeLessThan(100);
  });
});

describe('readBoundedBody', () => {
  it('reads an answer within the limit whole', async () => {
    const body = await readBoundedBody(new Response('x'.repeat(1000)), limit);
    expect(body?.length).toBe(1000);
  });

  it('refuses a declared length over the limit before reading', async () => {
    const res = new Response('small', { headers: { 'content-length': String(limit.maxBytes + 1) } });
    await expect(readBoundedBody(res, limit)).rejects.toMatchObject({ code: 'upstream_error' });
  });

  it('answers null for a status without a body', async () => {
    expect(await readBoundedBody(new Response(null, { status: 304 }), limit)).toBeNull();
  });
});
