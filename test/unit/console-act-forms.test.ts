import { describe, expect, it } from 'vitest';
import { triggerCatalog } from '../../shared/wiring/providers';
import { triggerIds } from '../../shared/domain/triggers';
import { keyBodyFromForm } from '../../local/console/key-form';
import { subscriptionBodyFromForm, triggerChoices } from '../../local/console/subscribe-form';

describe("the console's subscribe form", () => {
  it('offers every trigger of the catalog with the filters it declares', () => {
    const choices = triggerChoices(triggerCatalog);
    expect(choices.map((c) => c.id)).toEqual([...triggerIds]);
    for (const c of choices) expect(c.filters).toEqual(triggerCatalog[c.id].filters);
    expect(choices.find((c) => c.id === 'github.new_issue')).toMatchObject({ repository: true, filters: ['labels'] });
    expect(choices.find((c) => c.id === 'github.new_gist')).toMatchObject({ repository: false, organization: false });
  });

  it('makes a POST /subscriptions body: empty fields left out, list filters split, every posted filter passed on', () => {
    const form = new URLSearchParams({
      csrf: 'x',
      connectionId: ' conn_1 ',
      trigger: 'github.new_push',
      agentId: 'agent',
      repository: 'o/r',
      organization: '',
      'filter.branches': 'main, release/1\n dev ',
      'filter.column': 'Done',
      'filter.labels': '',
    });
    expect(subscriptionBodyFromForm(form)).toEqual({
      connectionId: 'conn_1',
      trigger: 'github.new_push',
      agentId: 'agent',
      repository: 'o/r',
      filters: { branches: ['main', 'release/1', 'dev'], column: 'Done' },
    });
    expect(subscriptionBodyFromForm(new URLSearchParams({ trigger: 't' }))).toEqual({ trigger: 't' });
  });
});

describe("the console's key form", () => {
  it('makes a POST /keys body from the ticked connections, the agents list and the filled fields only', () => {
    const form = new URLSearchParams([
      ['label', 'k'],
      ['connections', 'conn_a'],
      ['connections', 'conn_b'],
      ['agents', 'a1,\n a2'],
      ['endUserId', ' '],
      ['expiresAt', ''],
    ]);
    expect(keyBodyFromForm(form)).toEqual({ label: 'k', connections: ['conn_a', 'conn_b'], agents: ['a1', 'a2'] });
    expect(keyBodyFromForm(new URLSearchParams({ endUserId: 'u1' }))).toEqual({ label: '', endUserId: 'u1' });
  });
});
