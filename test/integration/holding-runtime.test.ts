import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { HoldingRuntime } from '../helpers/holding-runtime';

const runtime = await HoldingRuntime.start();
afterAll(() => runtime.close());
afterEach(() => runtime.reset());

const post = (id: string) =>
  fetch(runtime.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id }) });

describe('the holding agent runtime the dispatch tests wait on', () => {
  it('sees a condition on `holding` that the last held request makes true', async () => {
    runtime.held.add('evt_a');
    const answer = post('evt_a');
    await runtime.until(() => runtime.holding === 1);
    expect(runtime.received).toEqual(['evt_a']);
    runtime.release();
    expect((await answer).status).toBe(200);
  });

  it('answers every held request before a reset clears what it saw, so nothing reaches the next test', async () => {
    runtime.held.add('evt_b');
    const answer = post('evt_b');
    await runtime.until(() => runtime.holding === 1);
    await runtime.reset();
    expect((await answer).status).toBe(200);
    expect(runtime.answered).toEqual([]);
  });
});
