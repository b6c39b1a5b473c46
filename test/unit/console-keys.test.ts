import { describe, expect, it } from 'vitest';
import { consolePage } from '../../local/console/render';

describe("the console's scoped keys", () => {
  it('shows the agents a key is bound to, and "all" for a key that names none', () => {
    const page = consolePage(
      {
        connections: [],
        keys: [
          { id: 'k_bound', label: 'bound', connections: ['conn_1'], agents: ['agent-<b>'], createdAt: '2026-11-27T10:00:00.000Z' },
          { id: 'k_open', label: 'open', connections: ['conn_1'], createdAt: '2026-11-27T10:00:00.000Z' },
        ],
        subscriptions: [],
        events: { events: [], query: new URLSearchParams() },
        refused: [],
        deadLetters: [],
        deadLetterDepth: 0,
      },
      { csrf: 'c', nonce: 'n', tools: [] },
    );
    const row = (id: string) => page.slice(page.indexOf(`data-key="${id}"`)).split('</tr>')[0] ?? '';
    expect(page).toContain('<th>agents</th>');
    expect(row('k_bound')).toMatch(/<code>agent-&(lt|#60);b&(gt|#62);<\/code>/);
    expect(row('k_bound')).not.toContain('<b>');
    expect(row('k_open')).toContain('>all<');
  });
});
