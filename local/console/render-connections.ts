import { escapeHtml as h } from '../../shared/http/html';
import type { Connection } from '../../shared/domain/model';
import { badge, csrfField, formRefusal, textField, type FormState } from './html-parts';
import { sectionNotice, type Message } from './notices';

/** What the connections section is drawn from beyond the list. */
export interface ConnectionsOptions {
  csrf: string;
  formState?: FormState;
  notice?: string;
  noticeSubject?: string;
  message?: Message;
}

/** The end user a console connection is made for when the form names none. */
export const consoleEndUser = 'console';

function connectForm(options: ConnectionsOptions): string {
  return (
    `<details class="act"${options.formState?.form === 'connect' ? ' open' : ''}><summary>Connect an account</summary>` +
    `<form method="post" action="/console/connect" id="connect-form">${csrfField(options.csrf)}` +
    `<p class="muted">Opens the connect page (the one the platform's end users get): choose the service there, authorize, and you come back here.</p>` +
    formRefusal(options.formState, 'connect') +
    textField(options.formState, 'connect', {
      name: 'endUserId',
      label: 'end user',
      value: consoleEndUser,
      hint: 'The connection carries this end user id; a key made for them opens it',
    }) +
    textField(options.formState, 'connect', { name: 'label', label: 'label', hint: 'optional' }) +
    `<button class="primary" type="submit">Open the connect page</button></form></details>`
  );
}

export function connectionsSection(list: Connection[], options: ConnectionsOptions): string {
  const rows = list
    .map(
      (c) =>
        `<tr data-connection="${h(c.id)}"><td><code>${h(c.id)}</code></td><td>${h(c.provider)}</td><td>${h(c.accountLogin)}</td><td>${h(c.label ?? '')}${c.endUserId ? `<br><small>end user <code>${h(c.endUserId)}</code></small>` : ''}</td><td>${h(c.authMethod)}</td>` +
        `<td>${badge(c.status)}${c.statusReason ? ` <small class="muted">${h(c.statusReason)}</small>` : ''}</td><td>${c.repositories.length ? h(c.repositories.join(', ')) : '<span class="muted">all</span>'}</td></tr>`,
    )
    .join('');
  return `<section id="connections"><h2>Connections <small>${list.length}</small></h2>${sectionNotice(options, 'connections')}${
    list.length
      ? `<div class="wide"><table><tr><th>id</th><th>service</th><th>account</th><th>label</th><th>auth</th><th>state</th><th>repositories</th></tr>${rows}</table></div>`
      : '<p class="muted">No connections yet.</p>'
  }${connectForm(options)}</section>`;
}
