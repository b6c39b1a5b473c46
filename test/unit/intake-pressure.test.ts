import { describe, expect, it } from 'vitest';
import { intakePressure } from '../../local/intake-pressure';
import type { HttpRequest, HttpResponse } from '../../shared/http/types';

describe('intake pressure', () => {
  it('counts as busy while more than 32 requests are being handled', async () => {
    const pressure = intakePressure();
    const release: Array<() => void> = [];
    const handle = pressure.count(() => new Promise<HttpResponse>((r) => release.push(() => r({ status: 200 }))));
    const req = { method: 'POST', path: '/', headers: {}, query: new URLSearchParams(), body: Buffer.alloc(0) } as HttpRequest;
    const answers = Array.from({ length: 33 }, () => handle(req));
    expect(pressure.busy()).toBe(true);
    for (const r of release) r();
    await Promise.all(answers);
    pressure.stop();
  });
});
