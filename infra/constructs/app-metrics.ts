/**
 * The EMF metrics the functions emit (Powertools Metrics), as the dashboard reads them:
 * namespace `AgentIntegrations`, a `stage` dimension on every one (Powertools' `service`
 * and extra dimensions are fine: the dashboard searches by name and stage and sums). Emit
 * each data point under one dimension set only, or the sums count it twice. Emitting code
 * must use these exact names, or the dashboard shows empty graphs.
 */
export const metricNamespace = 'AgentIntegrations';

export const appMetrics = {
  deliveriesAccepted: 'DeliveriesAccepted',
  deliveriesRefused: 'DeliveriesRefused',
  deliveriesDuplicated: 'DeliveriesDuplicated',
  eventsDispatched: 'EventsDispatched',
  eventsRetried: 'EventsRetried',
  eventsDeadLettered: 'EventsDeadLettered',
  /** With an `outcome` dimension (`ok` or the error code), optionally `toolId`: one line each. */
  toolSteps: 'ToolSteps',
  rateLimitWaits: 'RateLimitWaits',
  tokenRefreshes: 'TokenRefreshes',
  /** What the redelivery sweep found and asked the code host to redeliver. */
  sweepRedeliveries: 'SweepRedeliveries',
} as const;
