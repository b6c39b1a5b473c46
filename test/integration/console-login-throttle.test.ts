import { describe, expect, it } from 'vitest';
import type { LocalQueues } from '../../shared/adapters/local/local-queues';
import type { HttpResponse, Route } from '../../shared/http/types';
import { RecentEvents } from '../../local/console/recent-events';
import { consoleRoutes } from '../../local/console/routes';
import { TestClock } from '../helpers/test-clock';
import { toolTestContext } from '../helpers/tool-context';

/**
 * The console's sign-in throttles key guessing per client and does not turn it into a log
 * flood: after a few wrong keys a client is answered 429 with Retry-After (its keys not even
 * compared), and a window of refusals writes one line at first and one summary. All on the
 * test clock: the verdicts never depend on how fast the machine is.
 */
const key = 'platform-key-for-tests-0123456789abcdef';

async function setup() {
  const clock = new TestClock();
  const t = await toolTestContext({}, clock);
  const routes = consoleRoutes(t.ctx, {} as LocalQueues, new RecentEvents(clock, t.ctx.blobs));
  const login = routes.find((r) => r.method === 'POST' && r.pattern === '/console/login') as Route;
  const signIn = (guess: string, clientAddress = '203.0.113.7', accept = 'application/json'): Promise<HttpResponse> =>
    login.handle({
      method: 'POST',
      path: '/console/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
      query: new URLSearchParams(),
      params: {},
      body: Buffer.from(new URLSearchParams({ key: guess }).toString()),
      clientAddress,
    });
  const signInLines = () => t.logLines.filter((l) => l.includes('console sign-in'));
  return { clock, t, signIn, signInLines };
}

describe('the console sign-in', () => {
  it('slows a client after a few wrong keys: 300 guesses at once get 429 with Retry-After, and almost none is compared', async () => {
    const { signIn } = await setup();
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => signIn(`wrong-key-${i}-0123456789abcdefghijklmn`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(295);
    const throttled = answers.find((a) => a.status === 429);
    expect(Number(throttled?.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(String(throttled?.body))).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('refuses even the right key during the back-off, then lets it in once Retry-After has passed', async () => {
    const { clock, signIn } = await setup();
    for (let i = 0; i < 10; i++) await signIn(`wrong-key-${i}-0123456789abcdefghijklmn`);
    const refused = await signIn(key);
    expect(refused.status).toBe(429);
    clock.advance(Number(refused.headers?.['retry-after']) * 1000);
    expect((await signIn(key)).status).toBe(303);
  });

  it("does not slow another client for one client's guesses", async () => {
    const { signIn } = await setup();
    for (let i = 0; i < 20; i++) await signIn(`wrong-key-${i}-0123456789abcdefghijklmn`, '203.0.113.7');
    expect((await signIn(key, '198.51.100.9')).status).toBe(303);
  });

  it('shows a browser the sign-in page with the wait, as 429', async () => {
    const { signIn } = await setup();
    for (let i = 0; i < 10; i++) await signIn(`wrong-key-${i}-0123456789abcdefghijklmn`);
    const page = await signIn('another-wrong-key-0123456789abcdefghijkl', '203.0.113.7', 'text/html');
    expect(page.status).toBe(429);
    expect(page.headers?.['retry-after']).toBeDefined();
    expect(String(page.body)).toContain('Too many wrong keys');
  });

  it('writes one line when a window of refusals starts and one summary for it, not one line per guess', async () => {
    const { clock, signIn, signInLines } = await setup();
    await Promise.all(Array.from({ length: 300 }, (_, i) => signIn(`wrong-key-${i}-0123456789abcdefghijklmn`)));
    expect(signInLines()).toHaveLength(1);
    clock.advance(61_000);
    await signIn('one-more-wrong-key-0123456789abcdefghijk');
    const lines = signInLines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines.find((l) => l.refused === 300)).toBeDefined();
  });
});
