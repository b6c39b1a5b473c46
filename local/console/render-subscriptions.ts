import { escapeHtml as h } from '../../shared/http/html';
import type { Connection } from '../../shared/domain/model';
import type { SubscriptionView } from './console-data';
import { badge, csrfField, fieldProblem, formRefusal, textField, time, type FormState } from './html-parts';
import { sectionNotice, type Message } from './notices';
import { filterParam, type TriggerChoice } from './subscribe-form';

export interface SubscriptionsOptions {
  csrf: string;
  triggers?: TriggerChoice[];
  /** The trigger whose subscribe form is open. */
  subscribeTrigger?: string;
  formState?: FormState;
  notice?: string;
  noticeSubject?: string;
  message?: Message;
}

const filterHints: Record<string, { label: string; hint: string }> = {
  branches: { label: 'branches', hint: 'One per line or comma-separated; empty: every branch' },
  labels: { label: 'labels', hint: 'One per line or comma-separated; empty: every label' },
  column: { label: 'column', hint: 'A classic project column, by id or name' },
  project: { label: 'project', hint: 'A project (v2), by node id or number' },
  template: { label: 'template', hint: "A request template's name" },
  folder: { label: 'folder', hint: "A request folder's name" },
  client: { label: 'client', hint: "A client's id or e-mail" },
};

function target(s: SubscriptionView): string {
  return s.repository ?? (s.organization ? `org ${s.organization}` : 'account');
}

function rowActions(s: SubscriptionView, csrf: string): string {
  return (
    `<form class="inline example" method="post" action="/console/subscriptions/${encodeURIComponent(s.id)}/example">${csrfField(csrf)}<button type="submit" aria-label="Send an example ${h(s.trigger)} event to ${h(s.id)}">Send example</button></form> ` +
    `<form class="inline unsubscribe" method="post" action="/console/subscriptions/${encodeURIComponent(s.id)}/delete" data-confirm="Delete this subscription?">${csrfField(csrf)}<button type="submit" aria-label="Delete ${h(s.id)}">Delete</button></form>`
  );
}

function triggerPicker(options: SubscriptionsOptions): string {
  const groups = new Map<string, TriggerChoice[]>();
  for (const t of options.triggers ?? []) groups.set(t.provider, [...(groups.get(t.provider) ?? []), t]);
  const optionsHtml = [...groups]
    .map(
      ([p, list]) =>
        `<optgroup label="${h(p)}">${list.map((t) => `<option value="${h(t.id)}"${t.id === options.subscribeTrigger ? ' selected' : ''}>${h(`${t.title} (${t.id})`)}</option>`).join('')}</optgroup>`,
    )
    .join('');
  return `<form method="get" action="/#subscribe" id="subscribe-picker"><label for="subscribe-pick">trigger</label> <select id="subscribe-pick" name="subscribe"><option value="">Choose a trigger</option>${optionsHtml}</select> <button type="submit">Next</button></form>`;
}

function connectionPicker(connections: Connection[], trigger: TriggerChoice, state: FormState | undefined): string {
  const mine = connections.filter((c) => c.provider === trigger.provider);
  const chosen = state?.values.get('connectionId');
  const problem = fieldProblem(state, 'connectionId', 'subscribe-connection');
  return `<div class="field"><label for="subscribe-connection">connection *</label><select id="subscribe-connection" name="connectionId" required${problem.attrs}>${mine
    .map(
      (c) =>
        `<option value="${h(c.id)}"${c.id === chosen ? ' selected' : ''}>${h(`${c.accountLogin}${c.label ? ` (${c.label})` : ''} - ${c.id}`)}</option>`,
    )
    .join(
      '',
    )}</select>${mine.length ? '' : `<small class="bad">No ${h(trigger.provider)} connection yet: connect one above.</small>`}${problem.html}</div>`;
}

function subscribeForm(connections: Connection[], options: SubscriptionsOptions): string {
  const trigger = (options.triggers ?? []).find((t) => t.id === options.subscribeTrigger);
  if (!trigger) return '';
  const state = options.formState?.form === 'subscribe' ? options.formState : undefined;
  const targets = [
    trigger.repository
      ? textField(state, 'subscribe', {
          name: 'repository',
          label: 'repository',
          placeholder: 'owner/name',
          required: !trigger.organization,
        })
      : '',
    trigger.organization
      ? textField(state, 'subscribe', {
          name: 'organization',
          label: 'organization',
          ...(trigger.repository ? { hint: 'Or an organization instead of a repository' } : { required: true }),
        })
      : '',
  ].join('');
  const filters = trigger.filters
    .map((f) => textField(state, 'subscribe', { name: filterParam(f), ...(filterHints[f] ?? { label: f, hint: '' }) }))
    .join('');
  return (
    `<form method="post" action="/console/subscriptions#subscribe" id="subscribe-form">${csrfField(options.csrf)}<input type="hidden" name="trigger" value="${h(trigger.id)}">` +
    `<h3>${h(trigger.title)} <small class="muted"><code>${h(trigger.id)}</code></small></h3>${formRefusal(options.formState, 'subscribe')}` +
    `${connectionPicker(connections, trigger, state)}${targets}${filters}` +
    textField(state, 'subscribe', { name: 'agentId', label: 'agent', required: true, hint: 'The agent the events are for' }) +
    `<button class="primary" type="submit">Subscribe</button></form>`
  );
}

export function subscriptionsSection(list: SubscriptionView[], connections: Connection[], options: SubscriptionsOptions): string {
  const rows = list
    .map((s) => {
      const last = s.lastEvent
        ? `${time(Date.parse(s.lastEvent.queuedAt))} ${badge(s.lastEvent.status)}`
        : '<span class="muted">none yet</span>';
      const via = s.webhookUrl ? `webhook <code class="webhook-url">${h(s.webhookUrl)}</code>` : h(s.delivery);
      return `<tr data-subscription="${h(s.id)}"><td><code>${h(s.id)}</code></td><td>${h(s.trigger)}</td><td>${h(s.agentId)}</td><td>${h(target(s))}</td><td>${via}</td><td>${last}</td><td class="actions">${rowActions(s, options.csrf)}</td></tr>`;
    })
    .join('');
  const open = options.subscribeTrigger !== undefined || options.formState?.form === 'subscribe';
  // A refusal with no trigger's form to show it above (the trigger itself refused) goes above the choice.
  const chosen = (options.triggers ?? []).some((t) => t.id === options.subscribeTrigger);
  const refusal = chosen ? '' : formRefusal(options.formState, 'subscribe');
  return `<section id="subscriptions"><h2>Subscriptions <small>${list.length}</small></h2>${sectionNotice(options, 'subscriptions')}${
    list.length
      ? `<div class="wide"><table><tr><th>id</th><th>trigger</th><th>agent</th><th>target</th><th>delivery</th><th>last event</th><th></th></tr>${rows}</table></div>`
      : '<p class="muted">No subscriptions yet.</p>'
  }<details class="act" id="subscribe"${open ? ' open' : ''}><summary>Subscribe an agent to a trigger</summary>${refusal}${triggerPicker(options)}${subscribeForm(connections, options)}</details></section>`;
}
