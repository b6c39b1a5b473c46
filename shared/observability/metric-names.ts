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
  /** Signed deliveries whose body did not fit their event (answered 2xx, never processed). Dimension `event`. */
  deliveriesRejectedShape: 'DeliveriesRejectedShape',
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
 * Code counts under snake_case `<area>_<what>` names (the local runtime's `/healthz` detail
 * and tests read them as they are); on AWS a name listed here is emitted under the dashboard
 * name it stands for, so several code names can add up to one dashboard metric. Only names
 * some code counts belong here (test/infra/metric-names.test.ts); names not listed are
 * emitted unchanged.
 */
export const metricAliases: Readonly<Record<string, string>> = {
  webhook_accepted: metricNames.deliveriesAccepted,
  webhook_refused: metricNames.deliveriesRefused,
  webhook_duplicate: metricNames.deliveriesDuplicated,
  webhook_rejected_shape: metricNames.deliveriesRejectedShape,
  dispatch_delivered: metricNames.eventsDispatched,
  // No AGENT_RUNTIME_URL: the event was handled by logging it.
  dispatch_logged: metricNames.eventsDispatched,
  dispatch_retry: metricNames.eventsRetried,
  events_dead_lettered: metricNames.eventsDeadLettered,
  dispatch_circuit_open: metricNames.dispatchCircuitOpened,
  tool_step: metricNames.toolSteps,
  contentsnare_throttled: metricNames.rateLimitWaits,
  rate_limit_waits: metricNames.rateLimitWaits,
  token_refreshes: metricNames.tokenRefreshes,
  sweep_redelivered: metricNames.sweepRedeliveries,
  sweep_failed: metricNames.sweepFailures,
};

/** The name a count is emitted under on AWS. */
export function emittedName(name: string): string {
  return metricAliases[name] ?? name;
}
