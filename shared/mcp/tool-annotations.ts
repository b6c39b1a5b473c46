/**
 * What an MCP client may assume of each tool step (the protocol's tool annotations), beside
 * `destructiveHint`, which comes from the step's own `destructive` flag. Every tool reaches an
 * outside service (`openWorldHint`). Read-only steps change nothing; idempotent ones leave the
 * same state when called twice with the same input. A test holds that every step is listed.
 */
export interface ToolBehaviour {
  readOnly: boolean;
  idempotent: boolean;
}

const read: ToolBehaviour = { readOnly: true, idempotent: true };
const write: ToolBehaviour = { readOnly: false, idempotent: false };
const setState: ToolBehaviour = { readOnly: false, idempotent: true };

export const toolBehaviour: Readonly<Record<string, ToolBehaviour>> = {
  'github.create_repository': write,
  'github.get_repository': read,
  'github.get_repository_content': read,
  'github.star_repo': setState,
  'github.create_branch': write,
  'github.get_commit': read,
  'github.list_commits': read,
  'github.create_or_update_file_contents': write,
  'github.create_issue': write,
  'github.create_issue_comment': write,
  'github.update_issue': setState,
  'github.get_issue_assignees': read,
  'github.search_issues_and_pull_requests': read,
  'github.create_pull_request': write,
  'github.get_reviewers': read,
  'github.update_project_v2_item_status': setState,
  'github.create_workflow_dispatch': write,
  'github.enable_workflow': setState,
  'github.disable_workflow': setState,
  'github.get_workflow_run': read,
  'github.list_workflow_runs': read,
  'github.create_gist': write,
  'github.update_gist': setState,
  'github.list_gists_for_user': read,
  'github.list_releases': read,
  'github.api_call': write,
  'github.get_pull_request': read,
  'github.get_pull_request_diff': read,
  'github.list_pull_request_files': read,
  'github.list_checks_for_ref': read,
  'github.create_pull_request_review': write,
  'github.reply_to_review_comment': write,
  'github.update_pull_request_branch': write,
  'github.merge_pull_request': write,
  'github.list_pull_requests': read,
  'github.get_issue': read,
  'github.list_issue_comments': read,
  'github.add_labels': setState,
  'github.remove_label': setState,
  'github.list_issues': read,
  'github.get_authenticated_user': read,
  'github.get_collaborator_permission': read,
  'contentsnare.create_client': write,
  'contentsnare.create_request': write,
  'contentsnare.api_call': write,
  // Toolsets repos, git and search.
  'github.list_branches': read,
  'github.list_tags': read,
  'github.get_release_by_tag': read,
  'github.get_latest_release': read,
  'github.compare_commits': read,
  'github.get_tree': read,
  'github.commit_files': write,
  'github.delete_file': write,
  'github.create_fork': setState,
  'github.search_code': read,
  'github.search_commits': read,
  'github.search_repositories': read,
  // discussions, actions, the collection service's reads.
  'github.get_discussion': read,
  'github.add_discussion_comment': write,
  'github.list_jobs_for_workflow_run': read,
  'github.get_job_logs': read,
  'github.rerun_failed_jobs': write,
  'github.cancel_workflow_run': setState,
  'contentsnare.get_request': read,
  'contentsnare.list_requests': read,
  'contentsnare.list_clients': read,
};

export interface McpToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The annotations of one step; an unlisted step is assumed to write (the safe side). */
export function toolAnnotations(step: { id: string; title: string; destructive: boolean }): McpToolAnnotations {
  const behaviour = toolBehaviour[step.id] ?? write;
  return {
    title: step.title,
    readOnlyHint: behaviour.readOnly,
    destructiveHint: step.destructive,
    idempotentHint: behaviour.idempotent,
    openWorldHint: true,
  };
}
