import { escapeHtml as h } from '../../shared/http/html';
import type { Connection } from '../../shared/domain/model';
import type { CreatedKey } from '../../shared/keys/scoped-keys';
import type { ApiKeyRecord } from '../../shared/store/api-key-repo';
import { csrfField, fieldProblem, formRefusal, textField, time, type FormState } from './html-parts';
import { sectionNotice, type Message } from './notices';

export interface KeysOptions {
  csrf: string;
  formState?: FormState;
  /** A key just made: its secret is on this one page and nowhere else. */
  newKey?: CreatedKey;
  notice?: string;
  noticeSubject?: string;
  message?: Message;
}

function connectionChoices(connections: Connection[], state: FormState | undefined): string {
  const ticked = new Set(state?.form === 'key' ? state.values.getAll('connections') : []);
  const problem = fieldProblem(state?.form === 'key' ? state : undefined, 'connections', 'key-connections');
  const boxes = connections
    .map(
      (c, i) =>
        `<label class="check"><input type="checkbox" name="connections" id="key-connection-${i}" value="${h(c.id)}"${ticked.has(c.id) ? ' checked' : ''}> ${h(`${c.accountLogin}${c.label ? ` (${c.label})` : ''}`)} <code>${h(c.id)}</code></label>`,
    )
    .join('');
  return `<fieldset class="field"${problem.attrs}><legend>connections</legend>${boxes || '<small class="muted">No connections yet: give an end user instead.</small>'}${problem.html}</fieldset>`;
}

function keyForm(connections: Connection[], options: KeysOptions): string {
  const state = options.formState;
  return (
    `<details class="act"${state?.form === 'key' ? ' open' : ''}><summary>Make a scoped key</summary>` +
    `<form method="post" action="/console/keys#keys" id="key-form">${csrfField(options.csrf)}${formRefusal(state, 'key')}` +
    textField(state, 'key', { name: 'label', label: 'label', required: true, placeholder: 'my agent' }) +
    connectionChoices(connections, state) +
    textField(state, 'key', { name: 'endUserId', label: 'end user', hint: 'Every connection of this end user, present and future' }) +
    textField(state, 'key', { name: 'agents', label: 'agents', hint: 'One per line or comma-separated; empty: every agent' }) +
    textField(state, 'key', { name: 'expiresAt', label: 'expires', placeholder: '2027-01-31T00:00:00Z', hint: 'ISO 8601; empty: never' }) +
    `<button class="primary" type="submit">Make the key</button></form></details>`
  );
}

function newKeyPanel(key: CreatedKey | undefined): string {
  if (!key) return '';
  return (
    `<div class="notice ok" id="new-key" role="status"><p>Key <code>${h(key.id)}</code> made. Copy it now: it is shown this once, and only its hash is kept.</p>` +
    `<label for="new-key-secret">key</label> <input type="text" id="new-key-secret" readonly value="${h(key.key)}"></div>`
  );
}

export function keysSection(list: ApiKeyRecord[], connections: Connection[], options: KeysOptions): string {
  const rows = list
    .map(
      (k) =>
        `<tr data-key="${h(k.id)}"><td><code>${h(k.id)}</code></td><td>${h(k.label)}</td><td>${k.connections.map((c) => `<code>${h(c)}</code>`).join(' ')}${k.endUserId ? ` <small>end user <code>${h(k.endUserId)}</code></small>` : ''}</td>` +
        `<td>${k.agents ? k.agents.map((a) => `<code>${h(a)}</code>`).join(' ') : '<span class="muted">all</span>'}</td>` +
        `<td>${time(Date.parse(k.createdAt))}</td><td>${k.expiresAt ? time(Date.parse(k.expiresAt)) : '<span class="muted">never</span>'}</td>` +
        `<td><form class="inline revoke" method="post" action="/console/keys/${encodeURIComponent(k.id)}/revoke" data-confirm="Revoke this key? Whoever holds it loses access at once.">${csrfField(options.csrf)}<button type="submit" aria-label="Revoke ${h(k.label)}">Revoke</button></form></td></tr>`,
    )
    .join('');
  return `<section id="keys"><h2>Scoped keys <small>${list.length}</small></h2>${sectionNotice(options, 'keys')}${newKeyPanel(options.newKey)}${
    list.length
      ? `<div class="wide"><table><tr><th>id</th><th>label</th><th>connections</th><th>agents</th><th>created</th><th>expires</th><th></th></tr>${rows}</table></div>`
      : '<p class="muted">No scoped keys: make one for an agent (tools, /mcp and subscriptions of its connections only).</p>'
  }${keyForm(connections, options)}</section>`;
}
