/**
 * The product metrics, by the exact names the CloudWatch dashboard and alarms read: the one
 * list, which the stack imports (infra/constructs/app-metrics.ts re-exports it).
 * Namespace `AgentIntegrations`, dimension `stage` on every one.
 * test/infra/metric-names.test.ts checks that each name the stack reads is counted by code.
 */
export const metricNames = {
  deliveriesAccepted: 'DeliveriesAccepted',
  deliveriesRefused: 'DeliveriesRefused',
  deliveriesDuplicated: 'DeliveriesDuplicated',
  eventsDispatched: 'EventsDispatched',
  eventsRetried: 'EventsRetried',
  eventsDeadLettered: 'EventsDeadLettered',
  /** The dispatch circuit over the agent runtime opened (once per opening, per container). */
  dispatchCircuitOpened: 'DispatchCircuitOpened',
  /** Dimensions `toolId` and `outcome` (`ok` or the error code). */
  toolSteps: 'ToolSteps',
  rateLimitWaits: 'RateLimitWaits',
  tokenRefreshes: 'TokenRefreshes',
  sweepRedeliveries: 'SweepRedeliveries',
  sweepFailures: 'SweepFailures',
} as const;

export const metricNamespace = 'AgentIntegrations';

/**
 * The names code already counts under (the local runtime's `/healthz` detail and tests read
 * them as they are), and the dashboard name each stands for on AWS. Names not listed here
 * are emitted unchanged.
 */
export const metricAliases: Readonly<Record<string, string>> = {
  webhook_accepted: metricNames.deliveriesAccepted,
  deliveries_accepted: metricNames.deliveriesAccepted,
  webhook_refused: metricNames.deliveriesRefused,
  deliveries_refused: metricNames.deliveriesRefused,
  webhook_duplicate: metricNames.deliveriesDuplicated,
  deliveries_duplicated: metricNames.deliveriesDuplicated,
  dispatch_delivered: metricNames.eventsDispatched,
  // No AGENT_RUNTIME_URL: the event was handled by logging it.
  dispatch_logged: metricNames.eventsDispatched,
  events_dispatched: metricNames.eventsDispatched,
  dispatch_retry: metricNames.eventsRetried,
  events_retried: metricNames.eventsRetried,
  events_dead_lettered: metricNames.eventsDeadLettered,
  dispatch_circuit_open: metricNames.dispatchCircuitOpened,
  tool_step: metricNames.toolSteps,
  'contentsnare.throttled': metricNames.rateLimitWaits,
  rate_limit_waits: metricNames.rateLimitWaits,
  token_refreshes: metricNames.tokenRefreshes,
  sweep_redelivered: metricNames.sweepRedeliveries,
  sweep_failed: metricNames.sweepFailures,
  sweep_failures: metricNames.sweepFailures,
};

/** The name a count is emitted under on AWS. */
export function emittedName(name: string): string {
  return metricAliases[name] ?? name;
}
