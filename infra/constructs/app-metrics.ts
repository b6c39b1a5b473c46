/**
 * The EMF metrics the functions emit (Powertools Metrics), as the dashboard reads them:
 * namespace `AgentIntegrations`, a `stage` dimension on every one (Powertools' `service`
 * and extra dimensions are fine: the dashboard searches by name and stage and sums). Emit
 * each data point under one dimension set only, or the sums count it twice.
 *
 * One list of names for code and stack: shared/observability/metric-names.ts, which also
 * maps the names code counts under to these. test/infra/metric-names.test.ts checks that
 * every metric the dashboard or an alarm reads is one some code counts.
 */
export { metricNames as appMetrics, metricNamespace } from '../../shared/observability/metric-names';
