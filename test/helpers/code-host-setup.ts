import { afterAll, afterEach, beforeAll } from 'vitest';
import { stopTestDynamo } from './dynamo';
import { FakeGitHub } from './fake-github-server';
import { testContext, type TestContext } from './test-context';

export interface CodeHostSuite {
  /** The fake code host (started before the file's first test). */
  readonly github: FakeGitHub;
  /**
   * A fresh test context (its own table, queue and secrets) with GITHUB_API_URL pointed at
   * the fake, plus `env`; closed after the test.
   */
  context(env?: Record<string, string | undefined>): Promise<TestContext>;
}

/**
 * The fake code host a test file shares, registered with vitest's hooks: started once with
 * `users` (token -> login) whose tokens it accepts; after each test, the contexts made by
 * `context()` closed and the fake's per-test state (hooks, deliveries, gists, repositories,
 * watchers, projects, refusals, the request log) emptied, users kept; after the file, the
 * fake and the embedded DynamoDB stopped. Call it at the top level of a test file.
 * `afterEachTest` runs first after each test (checks on the requests the test made).
 */
export function useFakeCodeHost(
  users: Record<string, string>,
  options: { env?: Record<string, string | undefined>; afterEachTest?: (github: FakeGitHub) => void } = {},
): CodeHostSuite {
  let github: FakeGitHub | undefined;
  const fake = () => {
    if (!github) throw new Error('the fake code host starts in beforeAll: use it inside a test or hook');
    return github;
  };
  const open: TestContext[] = [];
  beforeAll(async () => {
    github = await FakeGitHub.start();
    for (const [token, login] of Object.entries(users)) github.addUser(token, login);
  });
  afterEach(() => {
    const g = fake();
    try {
      options.afterEachTest?.(g);
    } finally {
      for (const t of open.splice(0)) t.close();
      for (const m of [g.hooks, g.refuseHooks, g.deliveries, g.gists, g.repos, g.watchers, g.classicProjects]) m.clear();
      g.redeliveries.length = 0;
      g.rateBudget = undefined;
      g.requests.length = 0;
    }
  });
  afterAll(async () => {
    await github?.close();
    await stopTestDynamo();
  });
  return {
    get github() {
      return fake();
    },
    context: async (env = {}) => {
      const t = await testContext({ GITHUB_API_URL: fake().url, ...options.env, ...env });
      open.push(t);
      return t;
    },
  };
}
