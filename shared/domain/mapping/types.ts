import type { TriggerId } from '../triggers';

/** Facts about one announced event that subscription filters are matched against. */
export interface EventFacts {
  /** `owner/name`, lower-cased comparisons are the matcher's job. */
  repository?: string;
  /** The repository's id at the code host: stable across renames and transfers, matched before the name. */
  repositoryId?: number;
  organization?: string;
  /** The organization's id at the code host (`organization.id`), matched before its login. */
  organizationId?: number;
  /** Branch name without `refs/heads/` (push, commit, branch events). */
  branch?: string;
  /** Label names involved (the applied label for new_label_on_issue; the labels otherwise). */
  labels?: string[];
  /** Classic project board column (new_card_in_column). */
  column?: { id?: string; name?: string };
  /** Projects (v2) project (project_item_status_changed). */
  project?: { nodeId?: string; number?: number };
  /** Collection service: the request's template and folder (names) and its clients (ids and e-mails), as read back. */
  request?: { template?: string; folder?: string; clients?: string[] };
}

/** One trigger occurrence produced from one webhook delivery (or one polled item). */
export interface MappedEvent {
  trigger: TriggerId;
  /**
   * What makes this occurrence unique for "announce once": e.g. `commit:<sha>` (once per
   * repository whatever branch it reaches), `tag:<name>`, else `delivery`. The dispatcher
   * combines it with the subscription (and the delivery id when it is `delivery`).
   */
  dedupeKey: string;
  /** The `event` object sent to the agent runtime: the fields an agent needs. */
  event: Record<string, unknown>;
  facts: EventFacts;
}

export interface MapInput {
  /** The `X-GitHub-Event` header. */
  event: string;
  /** The parsed JSON body. */
  payload: unknown;
  /** Login of the connected account (for mentions). */
  accountLogin: string;
}

/** How a trigger's events arrive. */
export type TriggerSource =
  | { kind: 'webhook'; scope: 'repository' | 'organization' | 'either' | 'account'; events: string[] }
  | { kind: 'polling' };
