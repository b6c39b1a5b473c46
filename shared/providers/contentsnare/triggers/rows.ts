import type { SubscriptionFilters } from '../../../domain/model';
import type { SnareTriggerName } from '../../../domain/triggers';

/**
 * The collection service's triggers as the catalog shows them. Each is one webhook event of
 * the partner API (same name). Deliveries are unsigned and carry no id, so what an event
 * says is never taken from the body: its subject is read back through the API
 * (`subject` says which record) and the event carries that.
 */

/** The record a trigger's event is about, and so what is read back before it is dispatched. */
export type SnareSubject = 'request' | 'field' | 'comment' | 'client';

export interface SnareTriggerRow {
  title: string;
  /** When it fires. */
  description: string;
  /** What counts and what does not, including how a missed delivery is (or cannot be) recovered. */
  includes: string;
  subject: SnareSubject;
  /** Whether the scheduled check finds what a missed delivery would have announced. */
  recoverable: boolean;
  filters: Array<keyof SubscriptionFilters>;
}

const requestFilters: Array<keyof SubscriptionFilters> = ['template', 'folder', 'client'];

const readBack = (what: string) => `Read back with ${what} before it is dispatched; the event carries the record as the API reports it.`;
const recovered =
  'A missed delivery is recovered by the scheduled check (every poll round: requests changed since the last round, newest first, within the read limit).';

export const snareTriggerRows: Record<SnareTriggerName, SnareTriggerRow> = {
  request_published: {
    title: 'Request published',
    description: 'A request is published (sent to its client).',
    includes: `${readBack('`GET /requests/{id}`')} Fires when the request is out of draft (published, waiting, completed or archived) and was not already announced as published since it was last seen in draft. ${recovered}`,
    subject: 'request',
    recoverable: true,
    filters: requestFilters,
  },
  request_completed: {
    title: 'Request completed',
    description: 'A request is completed.',
    includes: `${readBack('`GET /requests/{id}`')} Fires when its status is \`completed\`; once per completion (a reopened request completed again fires again). ${recovered}`,
    subject: 'request',
    recoverable: true,
    filters: requestFilters,
  },
  all_fields_completed: {
    title: 'All fields completed',
    description: 'Every field of a request is done (the client has answered everything; review may still be open).',
    includes: `${readBack('`GET /requests/{id}`')} Fires when \`done_fields_count\` reaches \`fields_count\` (or \`completion_percentage\` is 100); again only after it dropped below. ${recovered}`,
    subject: 'request',
    recoverable: true,
    filters: requestFilters,
  },
  request_reopened: {
    title: 'Request reopened',
    description: 'A completed request is reopened.',
    includes: `${readBack('`GET /requests/{id}`')} Fires when the request is no longer completed but published or waiting. ${recovered} The check sees a reopening only when it saw the request completed before (a request reopened and completed again between two rounds is not seen).`,
    subject: 'request',
    recoverable: true,
    filters: requestFilters,
  },
  request_viewed: {
    title: 'Request viewed',
    description: 'The client opens the request through its link.',
    includes: `${readBack('`GET /requests/{id}`')} Views of a request that has not changed since its last announced view are announced once (a view leaves no trace in the record to tell two apart). Not recoverable: the API records no views, so a missed delivery cannot be found afterwards.`,
    subject: 'request',
    recoverable: false,
    filters: requestFilters,
  },
  field_completed: {
    title: 'Field completed',
    description: 'The client completes a field of a request.',
    includes: `${readBack("`GET /pages/{page_id}` (the field) and `GET /requests/{id}` (that the page is the request's)")} Fires when the field's status is \`done\`; again after it was sent back (\`todo\`/\`redo\`) and done again. Not recoverable: the API has no list of changed fields, and reading every page of every changed request would spend the shared read limit.`,
    subject: 'field',
    recoverable: false,
    filters: requestFilters,
  },
  field_approved: {
    title: 'Field approved',
    description: 'A field is approved in review.',
    includes: `${readBack('`GET /pages/{page_id}` and `GET /requests/{id}`')} Fires when the field's status is \`approved\`. Not recoverable: the API has no list of changed fields (see field_completed).`,
    subject: 'field',
    recoverable: false,
    filters: requestFilters,
  },
  field_rejected: {
    title: 'Field rejected',
    description: 'A field is rejected (sent back to the client for changes).',
    includes: `${readBack('`GET /pages/{page_id}` and `GET /requests/{id}`')} Fires when the field's status is \`redo\` (the event carries the rejection message as read back). Not recoverable: the API has no list of changed fields (see field_completed).`,
    subject: 'field',
    recoverable: false,
    filters: requestFilters,
  },
  comment_created: {
    title: 'Comment created',
    description: 'A client adds a comment to a request.',
    includes:
      'The API has no endpoint to read a comment: the request (and the field, when the delivery names one) is read back and must allow and have comments; the comment text the delivery claims is passed on under `event.claimed`, marked as not confirmed by the API. Each distinct comment once. Not recoverable: the API lists no comments.',
    subject: 'comment',
    recoverable: false,
    filters: requestFilters,
  },
  client_created: {
    title: 'Client created',
    description: 'A client is added to the account.',
    includes: `${readBack('`GET /clients/{id}`')} Each client once. Not recoverable: clients carry no creation or change time to list recent ones by.`,
    subject: 'client',
    recoverable: false,
    filters: [],
  },
  client_updated: {
    title: 'Client updated',
    description: "A client's details change (name, e-mail, phone, company).",
    includes: `${readBack('`GET /clients/{id}`')} Fires once per distinct set of details (a redelivery, or an update that changes nothing the API shows, does not fire again). Not recoverable: clients carry no change time to list recent ones by.`,
    subject: 'client',
    recoverable: false,
    filters: [],
  },
};
