import type { DeliveryBound } from '../delivery-bound';
import { announcements, beforeWrite, deliveryGuid, type Announcement, type AnnouncingWorld, type BeforeWrite } from './github-webhooks';
import type { MatchedRequest } from './openapi-check';
import type { SimulatedGitHub, SimulatedHook } from './simulated-github';
import type { SimulatedResponse } from '../simulated-http';

/** The App's webhook (when the sandbox plays the App): whether its installation takes an announcement, and sending it. */
export interface AppDelivery {
  wants(a: Announcement): boolean;
  deliver(a: Announcement, guid: string): Promise<void>;
}

/**
 * The simulated code host answering back: a write a step makes is announced, once it is kept,
 * to the hooks subscribed to its event (repository and organization hooks, `*` included) and
 * to the App's webhook, each delivery signed with its hook's secret, sent after the write's
 * answer, as the code host sends it. All of it within one `DeliveryBound`.
 */
export class GitHubAnswerBack {
  private pending: Announcement[] = [];

  constructor(
    private readonly github: SimulatedGitHub,
    private readonly world: AnnouncingWorld,
    private readonly bound: DeliveryBound,
    /** The App's webhook when the sandbox plays the App (known once the runtime's environment is). */
    private readonly app: () => AppDelivery | undefined = () => undefined,
  ) {}

  /** Answers a matched operation, and keeps what its write announces until the write is kept. */
  async answer(match: MatchedRequest, respond: (m: MatchedRequest) => SimulatedResponse | Promise<SimulatedResponse>) {
    const before: BeforeWrite | undefined = match.method === 'GET' ? undefined : beforeWrite(this.world, match);
    const answer = await respond(match);
    if (before) this.pending.push(...(await announcements(this.world, match, answer, before)));
    return answer;
  }

  /** After a write: sends what it announced when it was kept (after the write's answer), forgets it when it was undone. */
  settle(kept: boolean): void {
    const out = this.pending;
    this.pending = [];
    if (kept) for (const a of out) setImmediate(() => void this.send(a));
  }

  private subscribed(a: Announcement): SimulatedHook[] {
    const [owner = ''] = a.repository.split('/');
    const mine = new Set([`repos/${a.repository}`.toLowerCase(), `orgs/${owner}`.toLowerCase()]);
    return [...this.github.hooks.values()].filter(
      (h) => h.active && mine.has(h.owner.toLowerCase()) && (h.events.includes(a.event) || h.events.includes('*')),
    );
  }

  private async send(a: Announcement): Promise<void> {
    const body = JSON.stringify(a.payload);
    for (const hook of this.subscribed(a)) {
      if (!this.bound.take()) return;
      // A receiver that does not answer is listed as such in the hook's deliveries, as on the code host.
      await this.github.deliver(hook, a.event, body, deliveryGuid()).catch(() => undefined);
    }
    const app = this.app();
    if (app?.wants(a) && this.bound.take()) await app.deliver(a, deliveryGuid()).catch(() => undefined);
  }
}
