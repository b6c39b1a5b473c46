/** The 26 code-host trigger names (docs/api.md), without the `github.` prefix. */
export const triggerNames = [
  'new_repository',
  'new_fork',
  'new_star',
  'new_watcher',
  'new_tag',
  'new_issue',
  'updated_issue',
  'new_pull_request',
  'updated_pull_request',
  'new_comment',
  'new_label_on_issue',
  'new_review_request',
  'new_pull_request_review',
  'new_commit',
  'new_push',
  'new_branch',
  'workflow_run_completed',
  'workflow_job_completed',
  'new_collaborator',
  'new_mention',
  'project_item_status_changed',
  'new_card_in_column',
  'new_release',
  'new_gist',
  'new_discussion',
  'new_discussion_comment',
] as const;

export type TriggerName = (typeof triggerNames)[number];
export type GitHubTriggerId = `github.${TriggerName}`;

/**
 * The collection service's triggers: each is the partner API's own webhook event name
 * (its reference, "Event names"), under the `contentsnare.` prefix.
 */
export const snareTriggerNames = [
  'request_published',
  'request_completed',
  'all_fields_completed',
  'request_reopened',
  'request_viewed',
  'field_completed',
  'field_approved',
  'field_rejected',
  'comment_created',
  'client_created',
  'client_updated',
] as const;

export type SnareTriggerName = (typeof snareTriggerNames)[number];
export type SnareTriggerId = `contentsnare.${SnareTriggerName}`;

export type TriggerId = GitHubTriggerId | SnareTriggerId;

export const githubTriggerIds: readonly GitHubTriggerId[] = triggerNames.map((n) => `github.${n}` as const);
export const snareTriggerIds: readonly SnareTriggerId[] = snareTriggerNames.map((n) => `contentsnare.${n}` as const);
export const triggerIds: readonly TriggerId[] = [...githubTriggerIds, ...snareTriggerIds];

export function isTriggerId(value: string): value is TriggerId {
  return (triggerIds as readonly string[]).includes(value);
}

export function isSnareTriggerId(value: string): value is SnareTriggerId {
  return (snareTriggerIds as readonly string[]).includes(value);
}

/** The partner API's event name of a collection-service trigger (`contentsnare.field_approved` -> `field_approved`). */
export function snareEventName(trigger: SnareTriggerId): SnareTriggerName {
  return trigger.slice('contentsnare.'.length) as SnareTriggerName;
}
