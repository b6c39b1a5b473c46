/**
 * Sample calls of the code-host tool steps and plausible answers of the code host, shared
 * by the step tests and the local-runtime test (every step through `npm start`).
 */

// The plausible answers are the sandbox's (`npm run dev`): one set for tests and the sandbox.
export { b64, defaultAnswers, sha } from '../../local/sandbox/github/github-answers';

/** Each step called with exactly the required inputs of its schema (checked below). */
export const requiredOnly: Record<string, Record<string, unknown>> = {
  'github.create_repository': { name: 'new-repo' },
  'github.get_repository': { owner: 'octo', repo: 'allowed' },
  'github.get_repository_content': { owner: 'octo', repo: 'allowed' },
  'github.star_repo': { owner: 'octo', repo: 'allowed' },
  'github.create_branch': { owner: 'octo', repo: 'allowed', ref: 'feature/x' },
  'github.get_commit': { owner: 'octo', repo: 'allowed', ref: 'main' },
  'github.list_commits': { owner: 'octo', repo: 'allowed' },
  'github.create_or_update_file_contents': { owner: 'octo', repo: 'allowed', path: 'docs/a.md', message: 'docs', content: '# A\n' },
  'github.create_issue': { owner: 'octo', repo: 'allowed', title: 'Bug' },
  'github.create_issue_comment': { owner: 'octo', repo: 'allowed', issue_number: 3, body: 'Thanks' },
  'github.update_issue': { owner: 'octo', repo: 'allowed', issue_number: 3 },
  'github.get_issue_assignees': { owner: 'octo', repo: 'allowed', issue_number: 3 },
  'github.search_issues_and_pull_requests': { q: 'is:open label:bug' },
  'github.create_pull_request': { owner: 'octo', repo: 'allowed', title: 'Add x', head: 'feature/x' },
  'github.get_reviewers': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.update_project_v2_item_status': { project_id: 'PVT_project1', item_id: 'PVTI_item1', status: 'in progress' },
  'github.create_workflow_dispatch': { owner: 'octo', repo: 'allowed', workflow_id: 'ci.yml' },
  'github.enable_workflow': { owner: 'octo', repo: 'allowed', workflow_id: 42 },
  'github.disable_workflow': { owner: 'octo', repo: 'allowed', workflow_id: 42 },
  'github.get_workflow_run': { owner: 'octo', repo: 'allowed', run_id: 99 },
  'github.list_workflow_runs': { owner: 'octo', repo: 'allowed' },
  'github.create_gist': { files: { 'a.md': { content: 'hi' } } },
  'github.update_gist': { gist_id: 'abc123' },
  'github.list_gists_for_user': {},
  'github.list_releases': { owner: 'octo', repo: 'allowed' },
  // Toolsets repos, git and search.
  'github.list_branches': { owner: 'octo', repo: 'allowed' },
  'github.list_tags': { owner: 'octo', repo: 'allowed' },
  'github.get_release_by_tag': { owner: 'octo', repo: 'allowed', tag: 'v1.0.0' },
  'github.get_latest_release': { owner: 'octo', repo: 'allowed' },
  'github.compare_commits': { owner: 'octo', repo: 'allowed', base: 'main', head: 'feature/x' },
  'github.get_tree': { owner: 'octo', repo: 'allowed', tree_sha: 'main' },
  'github.commit_files': { owner: 'octo', repo: 'allowed', message: 'Two files', files: [{ path: 'a.md', content: 'A' }] },
  'github.delete_file': { owner: 'octo', repo: 'allowed', path: 'README.md', message: 'Remove the readme' },
  'github.create_fork': { owner: 'octo', repo: 'allowed' },
  'github.search_code': { q: 'addClass repo:octo/allowed' },
  'github.search_commits': { q: 'fix repo:octo/allowed' },
  'github.search_repositories': { q: 'tetris language:assembly' },
  // Toolsets pull_requests, issues, users and context.
  'github.get_pull_request': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.get_pull_request_diff': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.list_pull_request_files': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.list_checks_for_ref': { owner: 'octo', repo: 'allowed', ref: 'main' },
  'github.create_pull_request_review': { owner: 'octo', repo: 'allowed', pull_number: 5, event: 'APPROVE' },
  'github.reply_to_review_comment': { owner: 'octo', repo: 'allowed', pull_number: 5, comment_id: 10, body: 'Done' },
  'github.update_pull_request_branch': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.merge_pull_request': { owner: 'octo', repo: 'allowed', pull_number: 5 },
  'github.list_pull_requests': { owner: 'octo', repo: 'allowed' },
  'github.get_issue': { owner: 'octo', repo: 'allowed', issue_number: 3 },
  'github.list_issue_comments': { owner: 'octo', repo: 'allowed', issue_number: 3 },
  'github.add_labels': { owner: 'octo', repo: 'allowed', issue_number: 3, labels: ['bug'] },
  'github.remove_label': { owner: 'octo', repo: 'allowed', issue_number: 3, name: 'bug' },
  'github.list_issues': { owner: 'octo', repo: 'allowed' },
  'github.get_authenticated_user': {},
  'github.get_collaborator_permission': { owner: 'octo', repo: 'allowed', username: 'hubot' },
  // discussions, actions
  'github.get_discussion': { owner: 'octo', repo: 'allowed', discussion_number: 1 },
  'github.add_discussion_comment': { owner: 'octo', repo: 'allowed', discussion_number: 1, body: 'Thanks' },
  'github.list_jobs_for_workflow_run': { owner: 'octo', repo: 'allowed', run_id: 99 },
  'github.get_job_logs': { owner: 'octo', repo: 'allowed', job_id: 9901 },
  'github.rerun_failed_jobs': { owner: 'octo', repo: 'allowed', run_id: 99 },
  'github.cancel_workflow_run': { owner: 'octo', repo: 'allowed', run_id: 99 },
};
