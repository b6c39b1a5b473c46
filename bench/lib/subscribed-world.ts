import { randomUUID } from 'node:crypto';
import { AwsWorld } from '../../test/aws/harness/aws-world';
import { httpClient } from '../../test/aws/harness/http-client';
import { FakeAgentRuntime } from '../../test/helpers/fake-agent-runtime';
import { FakeGitHub, type FakeHook } from '../../test/helpers/fake-github-server';
import { issueOpenedBody } from '../../test/helpers/seed';

export interface SubscribedWorld {
  world: AwsWorld;
  github: FakeGitHub;
  runtime: FakeAgentRuntime;
  /** The code host sends the `n`th signed `issues.opened` of the repository to its hook; answers the intake's status. */
  deliver(n: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * The stack as synthesized in the AWS-mode world (test/aws/harness) with a fake code host and
 * agent runtime, a token connection made over the platform API, and `agents` subscriptions
 * to new issues of `repository` (`owner/name`), whose hook the product created at the code host.
 */
export async function startSubscribedWorld(o: {
  platformKey: string;
  token: string;
  repository: string;
  agents: number;
}): Promise<SubscribedWorld> {
  const [owner = '', name = ''] = o.repository.split('/');
  const github = await FakeGitHub.start();
  github.addUser(o.token, owner);
  const runtime = await FakeAgentRuntime.start();
  const world = await AwsWorld.start({
    settings: { githubApiUrl: github.url, githubOAuthUrl: github.url, agentRuntimeUrl: runtime.url },
    secretValues: { PLATFORM_API_KEY_SECRET_ARN: o.platformKey },
  });
  const close = async () => {
    await world.close();
    await Promise.all([github.close(), runtime.close()]);
  };
  try {
    const { call } = httpClient(world.url, o.platformKey);
    const connection = await call('POST', '/connections', { provider: 'github', token: o.token });
    for (let a = 1; a <= o.agents; a++) {
      const sub = await call('POST', '/subscriptions', {
        connectionId: connection.body.id,
        trigger: 'github.new_issue',
        agentId: `agent-${a}`,
        repository: o.repository,
      });
      if (sub.status !== 201) throw new Error(`subscribing failed: ${sub.status} ${sub.text}`);
    }
  } catch (e) {
    await close();
    throw e;
  }
  const hook = [...github.hooks.values()].find((h) => h.owner === `repos/${o.repository}`) as FakeHook;
  const deliver = async (n: number) => {
    const body = issueOpenedBody((x) => {
      x.repository.full_name = o.repository;
      x.repository.name = name;
      x.repository.owner.login = owner;
      x.issue.title = `${name} ${n}`;
      x.issue.node_id = `I_${randomUUID()}`;
    }).toString('utf8');
    return (await github.deliver(hook, 'issues', body, randomUUID())).status;
  };
  return { world, github, runtime, deliver, close };
}
