/**
 * `npm run screenshots`: the README's pictures of the console and the OAuth pages
 * (docs/images/console-*.png, docs/images/oauth-*.png), taken in Debian's headless Chromium
 * from a local runtime on a temporary data dir, fed by the test suite's loopback fakes of
 * the code host and the agent runtime. Rerun it after changing the pages.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { localJobs } from '../local/jobs';
import { connectedPage, failedPage } from '../shared/oauth/pages';
import { launchBrowser } from '../test/helpers/browser';
import { FakeAgentRuntime } from '../test/helpers/fake-agent-runtime';
import { FakeGitHub } from '../test/helpers/fake-github-server';
import { platformKey, startRuntime, subscribeOverApi } from '../test/helpers/runtime-support';
import { examplePayload } from '../test/helpers/signed-delivery';

const out = join(process.cwd(), 'docs', 'images');
const token = 'ghp_screenshotToken00000000000000000000000';

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  const github = await FakeGitHub.start();
  github.addUser(token, 'Codertocat');
  github.gists.set('Codertocat', [
    {
      id: 'aa5a315d61ae9438b18d',
      description: 'Hello World Examples',
      public: true,
      files: {},
      html_url: 'https://gist.github.com/aa5a315d61ae9438b18d',
    },
  ]);
  const agent = await FakeAgentRuntime.start();
  const rt = await startRuntime({ GITHUB_API_URL: github.url, AGENT_RUNTIME_URL: agent.url }, false);
  const browser = await launchBrowser();
  try {
    const tenant = await subscribeOverApi(rt.url, github, token);
    const deliver = async (guid: string, title: string) => {
      const payload = examplePayload('issues', 'opened') as { issue: { title: string } };
      payload.issue.title = title;
      await github.deliver(tenant.hook, 'issues', JSON.stringify(payload), guid);
    };
    const consume = () => localJobs(rt.ctx, rt.queues)[0]!.runOnce();
    await deliver('shot-1', 'Spelling error in the README file');
    await consume();
    await deliver('shot-2', 'The agent runtime was down for this one');
    for (let i = 0; i <= rt.queues.queue.maxReceives; i++) await rt.queues.queue.receive(10, 0);
    // One the agent runtime answered 503: a retrying row says why and when.
    agent.answers.push({ status: 503, body: { error: 'warming up' } });
    await deliver('shot-3', 'Build fails on Node 22');
    await consume();

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${rt.url}/`);
    await page.screenshot({ path: join(out, 'console-login.png') });
    await page.type('#key', platformKey);
    await Promise.all([page.waitForNavigation(), page.click('#login button[type=submit]')]);
    await page.screenshot({ path: join(out, 'console-overview.png'), fullPage: true });
    // One event's attempts opened, and the events in a phone-sized window.
    await page.goto(`${rt.url}/?status=retrying#events`);
    await page.click('#events details.attempts-detail summary');
    await (await page.$('#events'))?.screenshot({ path: join(out, 'console-events.png') });
    await page.setViewport({ width: 390, height: 844 });
    await page.goto(`${rt.url}/#events`);
    await page.screenshot({ path: join(out, 'console-narrow.png') });
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${rt.url}/`);

    await Promise.all([page.waitForNavigation(), page.select('#tool-pick', 'github.list_gists_for_user')]);
    await page.type('#f-max_items', '5');
    await Promise.all([page.waitForNavigation(), page.click('#tool-form button[type=submit]')]);
    await (await page.$('#tools'))?.screenshot({ path: join(out, 'console-tool.png') });

    const oauth = await browser.newPage();
    await oauth.setViewport({ width: 800, height: 420 });
    const back = { href: `${rt.url}/`, label: 'Back to the console' };
    await oauth.setContent(
      String(connectedPage({ service: 'GitHub', account: 'octocat', connectionId: 'conn_5f0c3e2a9b8d4c71a6e2f3b4c5d6e7f8', back }).body),
    );
    await oauth.screenshot({ path: join(out, 'oauth-connected.png') });
    await oauth.setContent(
      String(
        failedPage({
          status: 400,
          service: 'GitHub',
          code: 'invalid_input',
          message: 'Unknown, expired or already used state; start the connection again',
          back,
        }).body,
      ),
    );
    await oauth.screenshot({ path: join(out, 'oauth-expired.png') });
    process.stdout.write(`screenshots written to ${out}\n`);
  } finally {
    await browser.close();
    await rt.dispose();
    await agent.close();
    await github.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
