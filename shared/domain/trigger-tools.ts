import type { TriggerId } from './triggers';

/**
 * Per trigger, the tool steps that answer it: what an agent woken by it reads first and then
 * does, so that it discovers its next step from the catalog (`answeredBy` in `GET /triggers`
 * and the MCP triggers resource). Tool ids only; a test holds that each is a registered step.
 */

const issueThread = ['github.get_issue', 'github.list_issue_comments', 'github.create_issue_comment'];
const pullRequestReview = [
  'github.get_pull_request',
  'github.get_pull_request_diff',
  'github.list_pull_request_files',
  'github.list_checks_for_ref',
  'github.create_pull_request_review',
];
const discussion = ['github.get_discussion', 'github.add_discussion_comment'];
const failedRun = ['github.list_jobs_for_workflow_run', 'github.get_job_logs', 'github.rerun_failed_jobs', 'github.get_workflow_run'];
const snareRequest = ['contentsnare.get_request', 'contentsnare.list_requests'];

export const triggerTools: Readonly<Record<TriggerId, readonly string[]>> = {
  'github.new_repository': ['github.get_repository', 'github.get_repository_content', 'github.list_branches', 'github.create_issue'],
  'github.new_fork': ['github.get_repository', 'github.list_branches', 'github.compare_commits'],
  'github.new_star': ['github.get_repository', 'github.get_authenticated_user'],
  'github.new_watcher': ['github.get_repository', 'github.get_authenticated_user'],
  'github.new_tag': ['github.list_tags', 'github.get_release_by_tag', 'github.compare_commits', 'github.get_commit'],
  'github.new_issue': [...issueThread, 'github.add_labels', 'github.update_issue', 'github.list_issues'],
  'github.updated_issue': [...issueThread, 'github.add_labels', 'github.remove_label', 'github.update_issue'],
  'github.new_pull_request': [...pullRequestReview, 'github.merge_pull_request', 'github.list_pull_requests'],
  'github.updated_pull_request': [...pullRequestReview, 'github.update_pull_request_branch', 'github.merge_pull_request'],
  'github.new_comment': [...issueThread, 'github.get_pull_request'],
  'github.new_label_on_issue': ['github.get_issue', 'github.add_labels', 'github.remove_label', 'github.create_issue_comment'],
  'github.new_review_request': pullRequestReview,
  'github.new_pull_request_review': [
    'github.get_pull_request',
    'github.get_reviewers',
    'github.reply_to_review_comment',
    'github.update_pull_request_branch',
    'github.merge_pull_request',
  ],
  'github.new_commit': ['github.get_commit', 'github.list_checks_for_ref', 'github.compare_commits'],
  'github.new_push': ['github.compare_commits', 'github.list_commits', 'github.get_tree', 'github.list_checks_for_ref'],
  'github.new_branch': ['github.list_branches', 'github.compare_commits', 'github.create_pull_request', 'github.commit_files'],
  'github.workflow_run_completed': [...failedRun, 'github.cancel_workflow_run'],
  'github.workflow_job_completed': failedRun,
  'github.new_collaborator': ['github.get_collaborator_permission', 'github.get_authenticated_user'],
  'github.new_mention': ['github.get_authenticated_user', ...issueThread, 'github.get_discussion'],
  'github.project_item_status_changed': ['github.update_project_v2_item_status', 'github.get_issue', 'github.get_pull_request'],
  'github.new_card_in_column': ['github.get_issue', 'github.create_issue_comment'],
  'github.new_release': ['github.get_release_by_tag', 'github.get_latest_release', 'github.list_releases', 'github.compare_commits'],
  'github.new_gist': ['github.list_gists_for_user', 'github.update_gist'],
  'github.new_discussion': discussion,
  'github.new_discussion_comment': discussion,
  'contentsnare.request_published': snareRequest,
  'contentsnare.request_completed': snareRequest,
  'contentsnare.all_fields_completed': snareRequest,
  'contentsnare.request_reopened': snareRequest,
  'contentsnare.request_viewed': snareRequest,
  'contentsnare.field_completed': ['contentsnare.get_request'],
  'contentsnare.field_approved': ['contentsnare.get_request'],
  'contentsnare.field_rejected': ['contentsnare.get_request'],
  'contentsnare.comment_created': ['contentsnare.get_request'],
  'contentsnare.client_created': ['contentsnare.list_clients', 'contentsnare.create_request'],
  'contentsnare.client_updated': ['contentsnare.list_clients', 'contentsnare.list_requests'],
};
