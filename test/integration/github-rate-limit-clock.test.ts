import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubTools } from '../../shared/providers/github/tools';
import { invokeTool } from '../../shared/tools/invoke';
import { startFakeHttp, type FakeServer } from '../helpers/fake-http';
import { TestClock } from '../helpers/test-clock';
import { toolTestContext, type ToolTestContext } from '../helpers/tool-context';

// A rate limit's reset time is counted from the context's clock, not the machine's: the
// tool surface hands its clock to the provider's error mapping.
describe("the code host's rate-limit answer, on the context's clock", () => {
  let host: FakeServer;
  let t: ToolTestContext;
  const clock = new TestClock(Date.parse('2026-01-01T00:00:00Z'));

  beforeAll(async () => {
    host = await startFakeHttp();
    t = await toolTestContext({ GITHUB_API_URL: host.url }, clock);
  });
  afterAll(() => host.close());

  it('answers rate_limited with the seconds left until the reset, as the context counts them', async () => {
    const reset = Math.floor(clock.now() / 1000) + 100;
    host.setHandler(() => ({
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) },
      body: { message: 'API rate limit exceeded' },
    }));
    const connection = await t.connect();
    const result = await invokeTool(
      t.ctx,
      { toolId: 'github.get_repository', connectionId: connection.id, input: { owner: 'o', repo: 'r' } },
      [githubTools],
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    if (result.ok) return;
    const retryAfter = result.error.details?.retryAfter as number;
    expect(retryAfter).toBeGreaterThanOrEqual(99);
    expect(retryAfter).toBeLessThanOrEqual(101);
  });
});
