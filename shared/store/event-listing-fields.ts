/**
 * The attributes of an event's summary that are set when it is queued and never change after
 * (its trigger, subscription, connection, agent, subject, delivery, times of occurrence and
 * queueing, the event it replays): what the all-events index projects besides its keys. A
 * rewrite of the summary (a new status, an attempt) changes none of them, so DynamoDB writes
 * nothing to that index for it. Declared here, apart from the summary's schema
 * (event-history.ts, which checks each is one of its fields), so that the table's design can
 * name them without importing the history.
 */
export const eventListingFields = [
  'eventId',
  'queuedAt',
  'trigger',
  'subscriptionId',
  'connectionId',
  'agentId',
  'repository',
  'organization',
  'deliveryId',
  'occurredAt',
  'replayOf',
] as const;
