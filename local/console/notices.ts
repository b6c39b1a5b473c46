import { escapeHtml as h } from '../../shared/http/html';

/** The sections an action's notice can be shown in: where the person took it. */
export type NoticeSection = 'connections' | 'keys' | 'subscriptions' | 'events' | 'dlq';

/** A notice written by the action itself (an answer that does not fit a redirect's `done`). */
export interface Message {
  section: NoticeSection;
  text: string;
  bad?: boolean;
}

/** What an action did, shown in the section it was taken from (where the person is), by `done`. */
const notices: Record<string, { section: NoticeSection; text: (subject?: string) => string; bad?: boolean }> = {
  replayed: {
    section: 'events',
    text: (id) => `The event was queued again as a new event${id ? ` (${id})` : ''}; it appears at the top of the events.`,
  },
  redriven: { section: 'dlq', text: () => 'Dead letters sent back to the queue.' },
  nothing_redriven: { section: 'dlq', text: () => 'Nothing was redriven: the dead letter is no longer there.', bad: true },
  connected: { section: 'connections', text: (id) => `Connected${id ? `: ${id}` : ''}.` },
  connect_failed: {
    section: 'connections',
    text: (code) => `The connection was not made${code ? ` (${code})` : ''}: connect again.`,
    bad: true,
  },
  subscribed: { section: 'subscriptions', text: (id) => `Subscribed${id ? `: ${id}` : ''}.` },
  already_subscribed: {
    section: 'subscriptions',
    text: (id) => `The same subscription exists already${id ? ` (${id})` : ''}: nothing new was made.`,
  },
  unsubscribed: { section: 'subscriptions', text: (id) => `Subscription ${id ?? ''} deleted.` },
  revoked: { section: 'keys', text: (id) => `Key ${id ?? ''} revoked: it opens nothing from now on.` },
};

/** The notice of `done` (or the action's own message) when it belongs in `section`. */
export function sectionNotice(options: { notice?: string; noticeSubject?: string; message?: Message }, section: NoticeSection): string {
  const own = options.message;
  const n = own ?? (options.notice ? notices[options.notice] : undefined);
  if (!n || n.section !== section) return '';
  const text = own ? own.text : (n as (typeof notices)[string]).text(options.noticeSubject);
  return `<p class="notice ${n.bad ? 'bad' : 'ok'}" id="notice" role="status">${h(text)}</p>`;
}
