import type { SendExampleResult } from '../admin/send-example';
import { callAdmin } from './local-admin-client';

export interface WaitDeps {
  out: (line: string) => void;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** What `GET /events` says of one event (the fields `--wait` reads). */
interface EventRow {
  id: string;
  status: string;
  subscriptionId: string;
  deliveryId: string;
  queuedAt: string;
  updatedAt: string;
  attemptCount: number;
  lastAttempt?: { at: string; status?: number; reason?: string; outcome: string };
  nextTryAt?: string;
}

/** Statuses after which nothing more happens to the event by itself. */
const finalStatuses = new Set(['delivered', 'logged', 'settled', 'dead_lettered', 'replayed']);

/** Whether a history row is the event this command sent. */
function isOurs(result: SendExampleResult, e: EventRow): boolean {
  if (e.subscriptionId !== result.subscriptionId) return false;
  if (result.kind === 'webhook') return e.deliveryId === result.deliveryId;
  if (result.kind === 'enqueued') return result.eventIds.includes(e.id);
  return e.queuedAt >= result.sentAt;
}

function describe(e: EventRow): string {
  const a = e.lastAttempt;
  const last = a ? `; last try ${a.at}: ${a.reason ?? (a.status !== undefined ? `HTTP ${a.status}` : a.outcome)}` : '';
  const next = e.nextTryAt ? `; next try ${e.nextTryAt}` : '';
  return `${e.status} after ${e.attemptCount} tr${e.attemptCount === 1 ? 'y' : 'ies'}${last}${next}`;
}

/**
 * `npm run trigger --wait`: polls the event history (`GET /events` to find the event, then
 * `GET /events/{id}`: the record the dispatch writes whatever AGENT_RUNTIME_URL is) until the
 * sent event is delivered, logged or settled
 * (exit 0), dead-lettered (exit 1), or the timeout passes (exit 1, saying where it stands).
 * Under `npm run dev` a delivered event's signature check is read from the sandbox inbox.
 */
export async function waitForEvent(
  base: string,
  key: string | undefined,
  trigger: string,
  result: SendExampleResult,
  timeoutSeconds: number,
  deps: WaitDeps,
): Promise<number> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = deps.now ?? Date.now;
  const end = now() + timeoutSeconds * 1000;
  deps.out(`Waiting up to ${timeoutSeconds} s for the event's history to say it was delivered...`);
  let seen: EventRow | undefined;
  // The event's id is found once in the trigger's listing (the newest first); from then on its
  // own record, `GET /events/{id}`, is read: it has the status as of now, a try running included.
  let eventId = result.kind === 'enqueued' ? result.eventIds[0] : undefined;
  for (;;) {
    const path = eventId ? `/events/${encodeURIComponent(eventId)}` : `/events?trigger=${encodeURIComponent(trigger)}&limit=25`;
    const answer = await callAdmin(base, key, 'GET', path, undefined, deps.fetch);
    if (!answer.reachable) {
      deps.out(`The local runtime went away (${answer.reason}).`);
      return 1;
    }
    if (answer.status === 200 && eventId) seen = answer.body as EventRow;
    else if (answer.status === 200) {
      seen = ((answer.body as { events?: EventRow[] }).events ?? []).find((e) => isOurs(result, e));
      eventId = seen?.id;
    } else if (answer.status !== 404) {
      deps.out(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return 1;
    }
    if (seen && finalStatuses.has(seen.status)) return reportFinal(base, key, seen, deps);
    if (now() >= end) {
      deps.out(
        `Not delivered within ${timeoutSeconds} s: ${seen ? `event ${seen.id} is ${describe(seen)}` : 'no event of it in the history yet'}. Check the runtime's log and \`GET /events/<id>\`.`,
      );
      return 1;
    }
    await sleep(250);
  }
}

async function reportFinal(base: string, key: string | undefined, e: EventRow, deps: WaitDeps): Promise<number> {
  const see = `  see it: curl -s ${base}/events/${e.id} -H "Authorization: Bearer $PLATFORM_API_KEY"`;
  if (e.status === 'delivered') {
    deps.out(
      `Delivered: event ${e.id} reached the agent runtime at ${e.lastAttempt?.at ?? e.updatedAt}${await signatureNote(base, key, e, deps)}.`,
    );
    deps.out(see);
    return 0;
  }
  if (e.status === 'logged') {
    deps.out(`Logged: event ${e.id} was written to the runtime's log (AGENT_RUNTIME_URL is not set).`);
    return 0;
  }
  if (e.status === 'settled') {
    deps.out(`Settled: event ${e.id} needed no delivery (a read of the code host showed nothing to deliver).`);
    return 0;
  }
  deps.out(`Not delivered: event ${e.id} is ${describe(e)}. ${e.status === 'dead_lettered' ? 'See `npm run dlq -- list`.' : ''}`.trimEnd());
  deps.out(see);
  return 1;
}

/** Under `npm run dev` the sandbox inbox says whether the signature checked out; elsewhere nothing (the inbox is absent). */
async function signatureNote(base: string, key: string | undefined, e: EventRow, deps: WaitDeps): Promise<string> {
  const answer = await callAdmin(
    base,
    key,
    'GET',
    `/sandbox/inbox?subscriptionId=${encodeURIComponent(e.subscriptionId)}`,
    undefined,
    deps.fetch,
  );
  if (!answer.reachable || answer.status !== 200)
    return e.lastAttempt?.status !== undefined ? ` (answered HTTP ${e.lastAttempt.status})` : '';
  const received = (answer.body as { events?: Array<{ signatureValid?: boolean; body?: { id?: unknown } }> }).events ?? [];
  const hit = received.find((r) => r.body?.id === e.id);
  return hit ? ` (signature ${hit.signatureValid ? 'valid' : 'INVALID'})` : '';
}
