import { sameSecret } from '../../shared/domain/same-secret';
import type { AppContext } from '../../shared/ports/app-context';
import { signBody } from '../../shared/dispatch/sign-event';
import { json } from '../../shared/http/responses';
import { localOnlySpec } from '../../shared/http/openapi';
import type { Route } from '../../shared/http/types';

/** One trigger event as the sandbox's agent runtime received it. */
export interface InboxEntry {
  receivedAt: string;
  /** `X-Signature-256` matched the body under DISPATCH_SIGNING_SECRET: always true, as only signed posts are kept. */
  signatureValid: boolean;
  /** The body as posted: `{id, trigger, subscriptionId, agentId, connectionId, deliveryId, occurredAt, event}`. */
  body: unknown;
}

/** The inbox keeps the newest events only: it is a window for people, not a store. */
export const inboxCapacity = 500;

export const inboxPath = '/sandbox/agent-runtime';

/**
 * The agent runtime of `npm run dev`: AGENT_RUNTIME_URL points at `POST /sandbox/agent-runtime`
 * unless set, and `GET /sandbox/inbox` (platform key) lists what arrived, newest first
 * (`?trigger=` and `?subscriptionId=` narrow it). Only posts signed by the dispatch are
 * taken, as an agent runtime must do. Kept in memory: a restart empties it.
 */
export class SandboxInbox {
  private readonly entries: InboxEntry[] = [];

  list(filter: { trigger?: string; subscriptionId?: string } = {}): InboxEntry[] {
    return this.entries.filter((e) => {
      const b = e.body as { trigger?: unknown; subscriptionId?: unknown } | undefined;
      return (
        (filter.trigger === undefined || b?.trigger === filter.trigger) &&
        (filter.subscriptionId === undefined || b?.subscriptionId === filter.subscriptionId)
      );
    });
  }

  add(entry: InboxEntry): void {
    this.entries.unshift(entry);
    this.entries.length = Math.min(this.entries.length, inboxCapacity);
  }

  routes(ctx: Pick<AppContext, 'config' | 'logger'>): Route[] {
    return [
      {
        method: 'POST',
        pattern: inboxPath,
        spec: localOnlySpec('The sandbox agent-runtime inbox: signed trigger events'),
        // No platform key (the dispatcher does not send one): the dispatch signature instead. An
        // unsigned or wrongly signed post (another page of the browser posting cross-site) is refused.
        auth: 'none',
        handle: async (req) => {
          const secret = ctx.config.dispatchSigningSecret;
          const given = String(req.headers['x-signature-256'] ?? '');
          if (secret === undefined || !sameSecret(given, signBody(secret, req.body))) {
            ctx.logger.warn('sandbox inbox: refused a post without a valid X-Signature-256');
            return json(401, {
              error: {
                code: 'unauthorized',
                message: 'X-Signature-256 is missing or does not match the body under the dispatch signing secret',
              },
            });
          }
          let body: unknown;
          try {
            body = JSON.parse(req.body.toString('utf8'));
          } catch {
            return json(400, { error: { code: 'invalid_input', message: 'The body is not JSON' } });
          }
          this.add({ receivedAt: new Date().toISOString(), signatureValid: true, body });
          const b = body as { trigger?: string; id?: string };
          ctx.logger.info('sandbox inbox: trigger event received', { trigger: b.trigger, eventId: b.id });
          return json(200, { received: true });
        },
      },
      {
        method: 'GET',
        pattern: '/sandbox/inbox',
        spec: localOnlySpec('The trigger events the sandbox inbox received'),
        auth: 'platform',
        handle: async (req) => {
          const events = this.list({
            trigger: req.query.get('trigger') ?? undefined,
            subscriptionId: req.query.get('subscriptionId') ?? undefined,
          });
          return json(200, { count: events.length, events });
        },
      },
    ];
  }
}
