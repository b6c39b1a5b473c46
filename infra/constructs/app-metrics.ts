/**
 * The EMF metrics the functions emit (Powertools Metrics), as the dashboard reads them:
 * namespace `AgentIntegrations`, dimension `stage` on every one. Emitting code must use
 * these exact names, or the dashboard shows empty graphs.
 */
export const metricNamespace = 'AgentIntegrations';

export const appMetrics = {
  deliveriesAccepted: 'DeliveriesAccepted',
  deliveriesRefused: 'DeliveriesRefused',
  deliveriesDuplicated: 'DeliveriesDuplicated',
  eventsDispatched: 'EventsDispatched',
  eventsRetried: 'EventsRetried',
  eventsDeadLettered: 'EventsDeadLettered',
  /** Dimensions `stage`, `outcome` (`ok` or the error code); tool ids are in the logs. */
  toolSteps: 'ToolSteps',
  rateLimitWaits: 'RateLimitWaits',
  tokenRefreshes: 'TokenRefreshes',
  /** What the redelivery sweep found and asked the code host to redeliver. */
  sweepRedeliveries: 'SweepRedeliveries',
} as const;
