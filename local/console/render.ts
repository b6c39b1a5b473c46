import { escapeHtml as h } from '../../shared/http/html';
import type { ToolResult } from '../../shared/tools/invoke';
import type { CatalogEntry } from '../../shared/tools/catalog';
import type { CreatedKey } from '../../shared/keys/scoped-keys';
import { consoleScriptIntegrity, consoleStyleIntegrity } from './assets';
import { eventQueryOf, shownEvents, type ConsoleData, type EventsPage, type EventView, type RefusedView } from './console-data';
import { eventStatuses } from '../../shared/store/event-history';
import { fieldParam, formFields, type FormField } from './tool-form';
import { badge, csrfField, time, type FormState } from './html-parts';
import { sectionNotice, type Message } from './notices';
import { connectionsSection } from './render-connections';
import { keysSection } from './render-keys';
import { subscriptionsSection } from './render-subscriptions';
import type { TriggerChoice } from './subscribe-form';

/**
 * The console's HTML, server-rendered. Every value that reaches the page goes through `h`
 * (payloads, labels, error messages are other people's text); nothing is put in a script,
 * a style or an event attribute.
 */

export interface PageOptions {
  csrf: string;
  nonce: string;
  tools: CatalogEntry[];
  selectedTool?: string;
  toolResult?: ToolResult;
  /** The posted tool form, to show it again with the result. */
  toolForm?: URLSearchParams;
  notice?: string;
  /** What the notice is about (the new event's id after a replay). */
  noticeSubject?: string;
  /** An action's own notice, when its answer is the page itself (an example sent). */
  message?: Message;
  /** A form the service refused, shown again with its problems. */
  formState?: FormState;
  /** A key just made, its secret shown this once. */
  newKey?: CreatedKey;
  /** The triggers the subscribe form offers, and the one chosen. */
  triggers?: TriggerChoice[];
  subscribeTrigger?: string;
}

export function shell(title: string, nonce: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${h(title)}</title><link rel="stylesheet" href="/console/console.css" integrity="${consoleStyleIntegrity}"><script src="/console/console.js" nonce="${h(nonce)}" integrity="${consoleScriptIntegrity}" defer></script></head><body>${body}</body></html>`;
}

export function loginPage(nonce: string, error?: string): string {
  return shell(
    'Console: sign in',
    nonce,
    `<main class="login"><section><h2>Agent integrations console</h2><form method="post" action="/console/login" id="login">` +
      `<div class="field"><label for="key">Platform key</label><input type="password" id="key" name="key" autocomplete="current-password" required autofocus>` +
      `<small>PLATFORM_API_KEY, or the platformApiKey field of local-secrets.json in the data dir.</small></div>` +
      (error ? `<p class="notice bad" id="login-error">${h(error)}</p>` : '') +
      `<button class="primary" type="submit">Sign in</button></form></section></main>`,
  );
}

const attemptOutcome: Record<string, string> = {
  delivered: 'delivered',
  failed: 'failed',
  throttled: 'throttled',
  timed_out: 'no answer',
};

function attemptsTable(e: EventView): string {
  if (e.attempts.length === 0) return '<p class="muted">Not tried yet.</p>';
  const rows = e.attempts
    .map(
      (a) =>
        `<tr><td>${time(Date.parse(a.at))}</td><td>${h(a.lane ?? '')}</td><td>${h(attemptOutcome[a.outcome] ?? a.outcome)}</td><td>${a.status !== undefined ? h(String(a.status)) : '<span class="muted">none</span>'}</td>` +
        `<td>${h(a.reason ?? '')}</td><td>${a.nextTryAt ? time(Date.parse(a.nextTryAt)) : ''}</td></tr>`,
    )
    .join('');
  const older =
    e.attemptCount > e.attempts.length ? `<p class="muted">${e.attemptCount - e.attempts.length} older attempts not kept.</p>` : '';
  return `<div class="wide"><table class="attempts"><tr><th>tried</th><th>lane</th><th>outcome</th><th>answer</th><th>reason</th><th>next try</th></tr>${rows}</table></div>${older}`;
}

function statusCell(e: EventView): string {
  const last = e.lastAttempt;
  const tries = e.attemptCount === 1 ? '1 try' : `${e.attemptCount} tries`;
  if (e.status === 'retrying') {
    const why = last?.reason ?? (last?.status !== undefined ? `HTTP ${last.status}` : 'failed');
    const when = e.nextTryAt ? `; next try ${time(Date.parse(e.nextTryAt))}` : '';
    return `${badge(e.status, `retrying (${tries})`)}<br><small class="why">${h(why)}${when}</small>`;
  }
  if (e.status === 'dead_lettered') {
    return `${badge(e.status, `dead lettered (${tries})`)}${last?.reason ? `<br><small class="why">${h(last.reason)}</small>` : ''}`;
  }
  if (e.status === 'replayed') {
    return `${badge(e.status)}${e.replayedBy?.length ? `<br><small>by <code>${h(e.replayedBy.at(-1) ?? '')}</code></small>` : ''}`;
  }
  return badge(e.status);
}

function eventRow(e: EventView, csrf: string, query: URLSearchParams): string {
  const back = query.toString();
  const replay = e.event
    ? `<form class="inline replay" method="post" action="/console/events/${encodeURIComponent(e.id)}/replay">${csrfField(csrf)}<input type="hidden" name="back" value="${h(back)}"><button type="submit">Replay</button></form>`
    : '';
  const payload = e.event
    ? `<details><summary>payload</summary><pre class="payload">${h(JSON.stringify(e.event, null, 2))}</pre></details>`
    : '<span class="muted">payload no longer kept</span>';
  return (
    `<tr data-event="${h(e.id)}" id="event-${h(e.id)}"><td>${time(Date.parse(e.queuedAt))}</td><td>${h(e.trigger)}<br><small>${h(e.repository ?? e.organization ?? '')}</small></td><td><code>${h(e.subscriptionId)}</code><br><small>${h(e.agentId)}</small></td>` +
    `<td><code>${h(e.id)}</code>${e.replayOf ? `<br><small>replay of <code>${h(e.replayOf)}</code></small>` : ''}<br><small>delivery ${h(e.deliveryId)}</small></td><td class="status">${statusCell(e)}</td><td>${replay}</td></tr>` +
    `<tr class="payload-row" data-event-detail="${h(e.id)}"><td colspan="6"><details class="attempts-detail" data-event-id="${h(e.id)}"><summary>attempts (${e.attemptCount})</summary>${attemptsTable(e)}</details>${payload}</td></tr>`
  );
}

/** The rows of a page of events: what the live updates replace. */
export function eventRows(page: EventsPage, csrf: string): string {
  if (page.error) return `<tr><td colspan="6"><p class="notice bad" id="filter-error">${h(page.error)}</p></td></tr>`;
  if (page.events.length === 0) return '<tr><td colspan="6" class="muted">No events match.</td></tr>';
  return page.events.map((e) => eventRow(e, csrf, page.query)).join('');
}

function filterForm(data: ConsoleData): string {
  const q = data.events.query;
  const v = (name: string) => h(q.get(name) ?? '');
  const option = (value: string, label: string, selected: string | null) =>
    `<option value="${h(value)}"${value === (selected ?? '') ? ' selected' : ''}>${h(label)}</option>`;
  const statuses = ['', ...eventStatuses].map((s) => option(s, s === '' ? 'any status' : s.replace(/_/g, ' '), q.get('status'))).join('');
  const connections = [option('', 'any connection', q.get('connectionId'))]
    .concat(data.connections.map((c) => option(c.id, `${c.accountLogin}${c.label ? ` (${c.label})` : ''}`, q.get('connectionId'))))
    .join('');
  const triggers = [...new Set(data.subscriptions.map((s) => s.trigger))].map((t) => `<option value="${h(t)}"></option>`).join('');
  return (
    `<form method="get" action="/#events" id="event-filters" class="filters">` +
    `<label>trigger <input type="text" name="trigger" value="${v('trigger')}" list="trigger-ids" placeholder="github.new_issue"></label><datalist id="trigger-ids">${triggers}</datalist>` +
    `<label>status <select name="status">${statuses}</select></label>` +
    `<label>repository <input type="text" name="repository" value="${v('repository')}" placeholder="owner/name"></label>` +
    `<label>connection <select name="connectionId">${connections}</select></label>` +
    `<label>agent <input type="text" name="agentId" value="${v('agentId')}"></label>` +
    (q.get('limit') && q.get('limit') !== String(shownEvents) ? `<input type="hidden" name="limit" value="${v('limit')}">` : '') +
    `<button type="submit">Filter</button> <a href="/#events">clear</a></form>`
  );
}

function pager(page: EventsPage): string {
  const first = new URLSearchParams(page.query);
  first.delete('cursor');
  const links = [];
  if (page.query.has('cursor')) links.push(`<a id="events-newest" href="/?${h(first.toString())}#events">newest</a>`);
  if (page.nextCursor) {
    const next = new URLSearchParams(page.query);
    next.set('cursor', page.nextCursor);
    links.push(`<a id="events-older" href="/?${h(next.toString())}#events">older events</a>`);
  }
  return links.length ? `<p class="pager">${links.join(' ')}</p>` : '';
}

function refusedSection(list: RefusedView[]): string {
  if (list.length === 0) return '';
  const rows = list
    .map(
      (r) =>
        `<tr data-refused="${h(r.deliveryId)}"><td>${time(r.at)}</td><td>${h(r.event)}</td><td><code>${h(r.deliveryId)}</code></td><td class="status">${badge('refused')}<br><small>${h(r.reason)}</small></td></tr>`,
    )
    .join('');
  return `<section id="refused"><h2>Refused deliveries <small>${list.length}, since this runtime started</small></h2><p class="muted">The intake refused these for their shape: nothing was queued for them.</p><div class="wide"><table><tr><th>received</th><th>event</th><th>delivery</th><th>why</th></tr>${rows}</table></div></section>`;
}

/** One line on the dispatch circuit: whether events are being sent to the agent runtime, or wait for it. */
export function circuitLine(data: Pick<ConsoleData, 'circuit'>): string {
  const c = data.circuit;
  if (!c) return '';
  const recent = `${c.failures} of the last ${c.samples} attempts failed`;
  const line =
    c.state === 'closed'
      ? `<span class="badge ok">closed</span> sending (${recent})`
      : c.state === 'half_open'
        ? `<span class="badge s-retrying">half-open</span> one probe goes to the agent runtime; the other events wait for its answer`
        : `<span class="badge bad">open</span> not sending until ${time(c.openUntil)}: ${c.reason === 'retry_after' ? 'the agent runtime asked for a pause (Retry-After)' : 'most recent attempts failed'}; events wait in the queue, then one probe goes`;
  return `<p id="circuit">Agent runtime circuit: ${line}</p>`;
}

function eventsSection(data: ConsoleData, options: PageOptions): string {
  const where = data.agentRuntimeUrl
    ? `to <code>${h(data.agentRuntimeUrl)}</code>`
    : '<span class="muted">AGENT_RUNTIME_URL is not set: events are only logged</span>';
  const page = data.events;
  // Live updates only on the first page: an older page stays as it was read.
  const live = page.query.has('cursor')
    ? ''
    : `<label class="live"><input type="checkbox" id="live" checked data-every="5000" data-src="/console/events/rows?${h(eventQueryOf(page.query).toString())}"> live</label>`;
  return (
    `<section id="events"><h2>Trigger events <small>newest first, delivered ${where}; kept 30 days</small> ${live}</h2>${circuitLine(data)}` +
    `${sectionNotice(options, 'events')}${filterForm(data)}` +
    `<div class="wide"><table id="events-table"><thead><tr><th>queued</th><th>trigger</th><th>subscription / agent</th><th>event</th><th>delivery</th><th></th></tr></thead><tbody id="events-list">${eventRows(page, options.csrf)}</tbody></table></div>` +
    `${pager(page)}</section>`
  );
}

function deadLettersSection(data: ConsoleData, options: PageOptions): string {
  const csrf = options.csrf;
  const rows = data.deadLetters
    .map(
      (d) =>
        `<tr data-dead-letter="${h(d.messageId)}"><td><code>${h(d.messageId)}</code></td><td>${h(d.trigger ?? '')}</td><td><code>${h(d.eventId ?? '')}</code></td><td>${h(d.subscriptionId ?? '')}</td><td>${d.receiveCount}</td><td>${h(d.firstSentAt ?? '')}</td>` +
        `<td>${d.problem ? `<span class="badge bad">${h(d.problem)}</span>` : ''}</td><td><form class="inline redrive" method="post" action="/console/dlq/redrive">${csrfField(csrf)}<input type="hidden" name="messageId" value="${h(d.messageId)}"><button type="submit">Redrive</button></form></td></tr>`,
    )
    .join('');
  const all = data.deadLetters.length
    ? `<form class="inline" id="redrive-all" method="post" action="/console/dlq/redrive" data-confirm="Send every dead letter back to the queue?">${csrfField(csrf)}<button type="submit">Redrive all</button></form>`
    : '';
  return `<section id="dlq"><h2>Dead-letter queue <small>${data.deadLetterDepth}</small> ${all}</h2>${sectionNotice(options, 'dlq')}${
    rows
      ? `<div class="wide"><table><tr><th>message</th><th>trigger</th><th>event</th><th>subscription</th><th>tries</th><th>first sent</th><th></th><th></th></tr>${rows}</table></div>`
      : '<p class="muted">Empty.</p>'
  }</section>`;
}

function fieldHtml(f: FormField, form: URLSearchParams | undefined): string {
  const name = fieldParam(f.name);
  const id = `f-${f.name}`;
  const value = form?.get(name) ?? '';
  const req = f.required ? ' required' : '';
  let control: string;
  switch (f.kind) {
    case 'enum':
      control = `<select id="${h(id)}" name="${h(name)}"${req}><option value="">${f.required ? '' : '(not set)'}</option>${(f.options ?? []).map((o) => `<option${o === value ? ' selected' : ''}>${h(o)}</option>`).join('')}</select>`;
      break;
    case 'boolean':
      control = `<select id="${h(id)}" name="${h(name)}"><option value="">(not set)</option>${['true', 'false'].map((o) => `<option${o === value ? ' selected' : ''}>${o}</option>`).join('')}</select>`;
      break;
    case 'integer':
    case 'number':
      control = `<input type="number" id="${h(id)}" name="${h(name)}" value="${h(value)}"${f.kind === 'number' ? ' step="any"' : ''}${req}>`;
      break;
    case 'string_list':
      control = `<textarea id="${h(id)}" name="${h(name)}" placeholder="one per line, or comma-separated"${req}>${h(value)}</textarea>`;
      break;
    case 'json':
      control = `<textarea id="${h(id)}" name="${h(name)}" placeholder="JSON"${req}>${h(value)}</textarea>`;
      break;
    default:
      control = `<input type="text" id="${h(id)}" name="${h(name)}" value="${h(value)}"${req}>`;
  }
  const hint = [
    f.description,
    f.defaultValue !== undefined ? `default ${JSON.stringify(f.defaultValue)}` : undefined,
    f.kind === 'scalar' ? (f.types ?? []).join(' or ') : undefined,
  ]
    .filter(Boolean)
    .join('; ');
  return `<div class="field"><label for="${h(id)}">${h(f.name)}${f.required ? ' *' : ''}</label>${control}${hint ? `<small>${h(hint)}</small>` : ''}</div>`;
}

function toolsSection(data: ConsoleData, options: PageOptions): string {
  const byProvider = new Map<string, CatalogEntry[]>();
  for (const t of options.tools) byProvider.set(t.provider, [...(byProvider.get(t.provider) ?? []), t]);
  const optionsHtml = [...byProvider]
    .map(
      ([p, list]) =>
        `<optgroup label="${h(p)}">${list.map((t) => `<option value="${h(t.id)}"${t.id === options.selectedTool ? ' selected' : ''}>${h(t.id)}</option>`).join('')}</optgroup>`,
    )
    .join('');
  const picker = `<form method="get" action="/#tools" id="tool-picker"><select id="tool-pick" name="tool"><option value="">Choose a tool step</option>${optionsHtml}</select> <button type="submit">Open</button></form>`;
  const tool = options.tools.find((t) => t.id === options.selectedTool);
  let form = '';
  if (tool) {
    const connections = data.connections.filter((c) => c.provider === tool.provider);
    const chosen = options.toolForm?.get('connectionId');
    const picker2 = `<div class="field"><label for="f-connection">connection *</label><select id="f-connection" name="connectionId" required>${connections
      .map(
        (c) =>
          `<option value="${h(c.id)}"${c.id === chosen ? ' selected' : ''}>${h(`${c.accountLogin}${c.label ? ` (${c.label})` : ''} - ${c.id}`)}</option>`,
      )
      .join('')}</select>${connections.length ? '' : `<small class="bad">No ${h(tool.provider)} connection yet.</small>`}</div>`;
    form =
      `<h3>${h(tool.title)} <small class="muted"><code>${h(tool.id)}</code>${tool.destructive ? ' (changes things; accepts dryRun)' : ''}</small></h3><p>${h(tool.description)}</p>` +
      `<form method="post" action="/console/tools/${encodeURIComponent(tool.id)}#tool-result" id="tool-form">${csrfField(options.csrf)}${picker2}${formFields(
        tool.inputSchema,
      )
        .map((f) => fieldHtml(f, options.toolForm))
        .join('')}<button class="primary" type="submit">Run</button></form>`;
  }
  const result = options.toolResult
    ? `<div id="tool-result"><h3>Result ${options.toolResult.ok ? badge('delivered', 'ok') : badge('dead_lettered', options.toolResult.error.code)}</h3><pre>${h(JSON.stringify(options.toolResult, null, 2))}</pre></div>`
    : '';
  return `<section id="tools"><h2>Tool steps <small>${options.tools.length}</small></h2>${picker}${form}${result}</section>`;
}

export function consolePage(data: ConsoleData, options: PageOptions): string {
  return shell(
    'Agent integrations console',
    options.nonce,
    `<header><h1>Agent integrations console</h1><nav><a href="/">Refresh</a></nav><form method="post" action="/console/logout">${csrfField(options.csrf)}<button type="submit">Sign out</button></form></header>` +
      `<main>${connectionsSection(data.connections, options)}${keysSection(data.keys, data.connections, options)}${subscriptionsSection(data.subscriptions, data.connections, options)}${eventsSection(data, options)}${refusedSection(data.refused)}${deadLettersSection(data, options)}${toolsSection(data, options)}</main>`,
  );
}
