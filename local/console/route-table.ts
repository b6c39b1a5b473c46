import { lambdaMaxBodyBytes } from '../../shared/http/body-limits';
import { localOnlySpec } from '../../shared/http/openapi';
import type { RouteTable } from '../../shared/http/route-table';

/**
 * The console (GET /, docs/console.md) as data: open routes that identify the visitor themselves
 * (its login form, or a Bearer header), their forms at most 4 KB except a tool step's input.
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
} satisfies RouteTable;
