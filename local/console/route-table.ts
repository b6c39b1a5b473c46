import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { localOnlySpec } from '../../shared/http/openapi';
import type { RouteTable } from '../../shared/http/route-table';

/**
 * The console (GET /, docs/console.md) as data: open routes that identify the visitor themselves
 * (its login form, or a Bearer header), their forms at most 4 KB except a tool step's input
 * and the subscribe and key forms (16 KB: their lists of filters, connections and agents).
 * Handlers: local/console/routes.ts.
 */
export const consoleRouteTable = {
  script: { method: 'GET', pattern: '/console/console.js', spec: localOnlySpec('The console script'), auth: 'none' },
  style: { method: 'GET', pattern: '/console/console.css', spec: localOnlySpec('The console style sheet'), auth: 'none' },
  page: { method: 'GET', pattern: '/', spec: localOnlySpec('The console page'), auth: 'none' },
  // The live updates: the rows of the events table as the page's filters select them (console.js polls it).
  eventRows: { method: 'GET', pattern: '/console/events/rows', auth: 'none', spec: localOnlySpec("The console's live event rows") },
  login: {
    method: 'POST',
    pattern: '/console/login',
    spec: localOnlySpec('Console sign-in with the platform key'),
    auth: 'none',
    maxBodyBytes: 4096,
  },
  logout: { method: 'POST', pattern: '/console/logout', spec: localOnlySpec('Console sign-out'), auth: 'none', maxBodyBytes: 4096 },
  replay: {
    method: 'POST',
    pattern: '/console/events/:eventId/replay',
    spec: localOnlySpec('Console: replay a recent event'),
    auth: 'none',
    maxBodyBytes: 4096,
  },
  redrive: {
    method: 'POST',
    pattern: '/console/dlq/redrive',
    spec: localOnlySpec('Console: redrive dead letters'),
    auth: 'none',
    maxBodyBytes: 4096,
  },
  runTool: {
    method: 'POST',
    pattern: '/console/tools/:toolId',
    spec: localOnlySpec('Console: run a tool step from its form'),
    auth: 'none',
    maxBodyBytes: lambdaMaxBodyBytes,
  },
  // Acting: connect through the connect page, subscribe and unsubscribe, send an example, make and revoke keys.
  connect: {
    method: 'POST',
    pattern: '/console/connect',
    spec: localOnlySpec('Console: open a connect page'),
    auth: 'none',
    maxBodyBytes: 4096,
  },
  connected: { method: 'GET', pattern: '/console/connected', spec: localOnlySpec('Console: back from the connect page'), auth: 'none' },
  subscribe: {
    method: 'POST',
    pattern: '/console/subscriptions',
    spec: localOnlySpec('Console: subscribe an agent to a trigger'),
    auth: 'none',
    maxBodyBytes: 16384,
  },
  unsubscribe: {
    method: 'POST',
    pattern: '/console/subscriptions/:subscriptionId/delete',
    spec: localOnlySpec('Console: delete a subscription'),
    auth: 'none',
    maxBodyBytes: 4096,
  },
  sendExample: {
    method: 'POST',
    pattern: '/console/subscriptions/:subscriptionId/example',
    spec: localOnlySpec("Console: send a trigger's example event to a subscription"),
    auth: 'none',
    maxBodyBytes: 4096,
  },
  createKey: {
    method: 'POST',
    pattern: '/console/keys',
    spec: localOnlySpec('Console: make a scoped key'),
    auth: 'none',
    maxBodyBytes: 16384,
  },
  revokeKey: {
    method: 'POST',
    pattern: '/console/keys/:keyId/revoke',
    spec: localOnlySpec('Console: revoke a scoped key'),
    auth: 'none',
    maxBodyBytes: 4096,
  },
} satisfies RouteTable;
