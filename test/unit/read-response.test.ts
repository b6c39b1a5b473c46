import { describe, expect, it } from 'vitest';
import { pickHeaders, readResponseData } from '../../shared/http/read-response';

const opts = { maxBytes: 16, service: 'the code host', json: 'when-declared' as const };

describe('readResponseData', () => {
  it('parses JSON the answer declares, and keeps text it does not', async () => {
    expect(await readResponseData(new Response('{"a":1}', { headers: { 'content-type': 'application/json' } }), opts)).toEqual({ a: 1 });
    expect(await readResponseData(new Response('{"a":1}', { headers: { 'content-type': 'text/plain' } }), opts)).toBe('{"a":1}');
    expect(
      await readResponseData(new Response('{"a":1}', { headers: { 'content-type': 'text/plain' } }), { ...opts, json: 'always' }),
    ).toEqual({ a: 1 });
    expect(await readResponseData(new Response('not json', { headers: { 'content-type': 'application/json' } }), opts)).toBe('not json');
  });

  it('answers null for an empty body', async () => {
    expect(await readResponseData(new Response(null, { status: 204 }), opts)).toBeNull();
  });

  it('refuses an answer over the limit, by its declared length or by what arrives', async () => {
    const declared = new Response('x'.repeat(10), { headers: { 'content-length': '100' } });
    await expect(readResponseData(declared, opts)).rejects.toMatchObject({ code: 'upstream_error', details: { status: 200 } });
    const streamed = new Response(
      new ReadableStream({
        start: (c) => {
          c.enqueue(new TextEncoder().encode('y'.repeat(40)));
          c.close();
        },
      }),
    );
    await expect(readResponseData(streamed, opts)).rejects.toMatchObject({ code: 'upstream_error' });
  });
});

describe('pickHeaders', () => {
  it('passes on only the named headers that are present', () => {
    const res = new Response('', { headers: { etag: '"1"', 'set-cookie': 'a=b', 'x-ratelimit-remaining': '5' } });
    expect(pickHeaders(res, ['etag', 'x-ratelimit-remaining', 'link'])).toEqual({ etag: '"1"', 'x-ratelimit-remaining': '5' });
  });
});
