import type { AppInstallation } from './model';

/**
 * The installation permissions under which a GitHub App receives each webhook event the
 * trigger catalog uses (GitHub's "Webhook events and payloads", "Availability": any one of
 * the listed permissions at read level or more). `metadata` is granted to every App.
 */
const eventPermissions: Readonly<Record<string, readonly string[]>> = {
  commit_comment: ['contents'],
  create: ['contents'],
  discussion: ['discussions'],
  discussion_comment: ['discussions'],
  fork: ['contents'],
  issue_comment: ['issues', 'pull_requests'],
  issues: ['issues'],
  member: ['members'],
  project_card: ['repository_projects', 'organization_projects'],
  projects_v2_item: ['organization_projects'],
  pull_request: ['pull_requests'],
  pull_request_review: ['pull_requests'],
  pull_request_review_comment: ['pull_requests'],
  push: ['contents'],
  release: ['contents'],
  repository: ['metadata'],
  star: ['metadata'],
  workflow_job: ['actions'],
  workflow_run: ['actions'],
};

/** The permissions any one of which lets an App receive `event` (empty: none known, so none asked for). */
export function permissionsForEvent(event: string): readonly string[] {
  return eventPermissions[event] ?? [];
}

/** What keeps an installation from receiving one webhook event. */
export interface EventGap {
  event: string;
  /** The installation is not subscribed to the event (the App's "Subscribe to events"). */
  notSubscribed: boolean;
  /** None of these permissions is granted; empty when one is. */
  missingPermissions: readonly string[];
}

/** Why the installation would not receive `event`, or undefined when it does. */
export function eventGap(installation: Pick<AppInstallation, 'permissions' | 'events'>, event: string): EventGap | undefined {
  const wanted = permissionsForEvent(event);
  const granted = wanted.length === 0 || wanted.some((p) => p === 'metadata' || isGranted(installation.permissions[p]));
  const subscribed = installation.events.includes(event);
  if (granted && subscribed) return undefined;
  return { event, notSubscribed: !subscribed, missingPermissions: granted ? [] : wanted };
}

function isGranted(level: string | undefined): boolean {
  return level === 'read' || level === 'write' || level === 'admin';
}

/** The gap for people: `the "issues" event (permission issues: read, and the event subscribed)`. */
export function describeGap(gap: EventGap): string {
  const needs: string[] = [];
  if (gap.missingPermissions.length > 0) needs.push(`permission ${gap.missingPermissions.join(' or ')} (read or write)`);
  if (gap.notSubscribed) needs.push(`the "${gap.event}" event subscribed`);
  return `the "${gap.event}" event needs ${needs.join(' and ')}`;
}
