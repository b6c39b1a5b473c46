import { describe, expect, it } from 'vitest';
import type { Connection, Subscription } from '../../shared/domain/model';
import { triggerIds, type TriggerId } from '../../shared/domain/triggers';
import { loadExample } from '../../shared/providers/github/triggers/example-docs';
import { fitExample } from '../../shared/providers/github/triggers/fit-example';
import { targetsAccepted } from '../../shared/subscriptions/trigger-rules';
import { triggerCatalog } from '../../shared/wiring/providers';

const connection = {
  id: 'conn_1',
  provider: 'github',
  accountLogin: 'octocat',
  authMethod: 'token',
  status: 'connected',
  repositories: [],
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
} as unknown as Connection;

const subscription = (trigger: TriggerId): Subscription => ({
  id: 'sub_1',
  connectionId: connection.id,
  trigger,
  agentId: 'agent',
  repository: 'octocat/hello-world',
  filters: {},
  delivery: 'webhook',
  createdAt: '2026-01-01T00:00:00Z',
});

/** Every string of a payload, however deep. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

const repositoryTriggers = triggerIds.filter((t) => targetsAccepted(triggerCatalog, t).includes('repository'));

describe('an example fitted to a subscription agrees with itself', () => {
  it.each(repositoryTriggers.filter((t) => loadExample(t).event !== null))(
    '%s: every URL and name of the documented repository names the subscribed one',
    (trigger) => {
      const doc = loadExample(trigger) as { event: string; payload: Record<string, unknown> };
      const fitted = fitExample(doc, subscription(trigger), connection);
      const left = strings(fitted.payload).filter((s) => /codertocat\/hello-world/i.test(s));
      expect(left).toEqual([]);
    },
  );

  it('the sender and the issue author of the repository owner become the subscribed repository owner', () => {
    const doc = loadExample('github.new_issue') as { event: string; payload: Record<string, unknown> };
    const p = fitExample(doc, subscription('github.new_issue'), connection).payload as Record<string, Record<string, unknown>>;
    expect(p.repository?.full_name).toBe('octocat/hello-world');
    expect(p.sender?.login).toBe('octocat');
    expect(String(p.sender?.html_url)).toBe('https://github.com/octocat');
    expect((p.issue?.user as Record<string, unknown> | undefined)?.login).toBe('octocat');
    expect(String(p.issue?.html_url)).toMatch(/^https:\/\/github\.com\/octocat\/hello-world\/issues\/\d+$/);
    expect(strings(p).filter((s) => /codertocat/i.test(s))).toEqual([]);
  });
});

describe('a mention example', () => {
  it('is sent by someone other than the mentioned account, named the same in its login and links', () => {
    const doc = loadExample('github.new_mention') as { event: string; payload: Record<string, unknown> };
    const p = fitExample(doc, subscription('github.new_mention'), connection).payload as Record<string, Record<string, unknown>>;
    expect(p.sender?.login).not.toBe('octocat');
    const login = String(p.sender?.login);
    expect(String(p.sender?.html_url)).toBe(`https://github.com/${login}`);
  });
});
