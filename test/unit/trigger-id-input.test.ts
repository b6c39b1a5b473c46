import { describe, expect, it } from 'vitest';
import { resolveTriggerId, unknownTriggerMessage } from '../../shared/domain/trigger-id';
import { triggerIds } from '../../shared/domain/triggers';
import { parseSubscriptionRequest } from '../../shared/subscriptions/subscription-input';
import { triggerCatalog } from '../../shared/wiring/providers';
import { InvalidInputError } from '../../shared/domain/errors';

const body = (trigger: string) => ({ connectionId: 'conn_1', trigger, agentId: 'agent', repository: 'octocat/hello-world' });

describe('trigger ids as people type them', () => {
  it('takes a name without its provider prefix when exactly one trigger has it, as npm run trigger does', () => {
    expect(resolveTriggerId('new_issue')).toBe('github.new_issue');
    expect(resolveTriggerId('github.new_issue')).toBe('github.new_issue');
    expect(parseSubscriptionRequest(triggerCatalog, body('new_issue')).trigger).toBe('github.new_issue');
  });

  it('refuses a misspelt id, a wrong prefix and an empty one', () => {
    expect(resolveTriggerId('new_isue')).toBeUndefined();
    expect(resolveTriggerId('gitlab.new_issue')).toBeUndefined();
    expect(resolveTriggerId('')).toBeUndefined();
  });

  it('answers an unknown trigger with the nearest id and names no other id', () => {
    const message = unknownTriggerMessage('github.new_isue');
    expect(message).toContain('Did you mean github.new_issue?');
    expect(message).toContain('GET /triggers');
    for (const id of triggerIds.filter((t) => t !== 'github.new_issue')) expect(message).not.toContain(id);
  });

  it('lists every id once in the subscription error when nothing is near', () => {
    let error: unknown;
    try {
      parseSubscriptionRequest(triggerCatalog, body('zzzz_qqqq_wwww'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    const field = (error as InvalidInputError).toJSON().details?.fields as Array<{ field: string; message: string }>;
    expect(field[0]?.field).toBe('trigger');
    expect(field[0]?.message.split('github.new_star').length).toBe(2);
  });
});
