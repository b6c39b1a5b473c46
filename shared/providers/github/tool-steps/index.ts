import { createBranch } from './create-branch';
import { createGist } from './create-gist';
import { createIssue } from './create-issue';
import { createIssueComment } from './create-issue-comment';
import { createOrUpdateFileContents } from './create-or-update-file-contents';
import { createPullRequest } from './create-pull-request';
import { createRepository } from './create-repository';
import { createWorkflowDispatch } from './create-workflow-dispatch';
import { disableWorkflow } from './disable-workflow';
import { enableWorkflow } from './enable-workflow';
import { getCommit } from './get-commit';
import { getIssueAssignees } from './get-issue-assignees';
import { getRepository } from './get-repository';
import { getRepositoryContent } from './get-repository-content';
import { getReviewers } from './get-reviewers';
import { getWorkflowRun } from './get-workflow-run';
import { listCommits } from './list-commits';
import { listGistsForUser } from './list-gists-for-user';
import { listReleases } from './list-releases';
import { listWorkflowRuns } from './list-workflow-runs';
import { searchIssuesAndPullRequests } from './search-issues-and-pull-requests';
import { starRepo } from './star-repo';
import { updateGist } from './update-gist';
import { updateIssue } from './update-issue';
import { updateProjectV2ItemStatus } from './update-project-v2-item-status';
import { commitFiles } from './commit-files';
import { compareCommits } from './compare-commits';
import { createFork } from './create-fork';
import { deleteFile } from './delete-file';
import { getLatestRelease } from './get-latest-release';
import { getReleaseByTag } from './get-release-by-tag';
import { getTree } from './get-tree';
import { listBranches } from './list-branches';
import { listTags } from './list-tags';
import { searchCode } from './search-code';
import { searchCommits } from './search-commits';
import { searchRepositories } from './search-repositories';
import { addLabels } from './add-labels';
import { createPullRequestReview } from './create-pull-request-review';
import { getAuthenticatedUser } from './get-authenticated-user';
import { getCollaboratorPermission } from './get-collaborator-permission';
import { getIssue } from './get-issue';
import { getPullRequest } from './get-pull-request';
import { getPullRequestDiff } from './get-pull-request-diff';
import { listChecksForRef } from './list-checks-for-ref';
import { listIssueComments } from './list-issue-comments';
import { listIssues } from './list-issues';
import { listPullRequestFiles } from './list-pull-request-files';
import { listPullRequests } from './list-pull-requests';
import { mergePullRequest } from './merge-pull-request';
import { removeLabel } from './remove-label';
import { replyToReviewComment } from './reply-to-review-comment';
import { updatePullRequestBranch } from './update-pull-request-branch';

import { addDiscussionComment } from './add-discussion-comment';
import { cancelWorkflowRun } from './cancel-workflow-run';
import { getDiscussion } from './get-discussion';
import { getJobLogs } from './get-job-logs';
import { listJobsForWorkflowRun } from './list-jobs-for-workflow-run';
import { rerunFailedJobs } from './rerun-failed-jobs';
/** The 25 pre-built code-host steps, in the order of docs/api.md (`github.api_call` is added beside them). */
export const githubSteps = [
  createRepository,
  getRepository,
  getRepositoryContent,
  starRepo,
  createBranch,
  getCommit,
  listCommits,
  createOrUpdateFileContents,
  createIssue,
  createIssueComment,
  updateIssue,
  getIssueAssignees,
  searchIssuesAndPullRequests,
  createPullRequest,
  getReviewers,
  updateProjectV2ItemStatus,
  createWorkflowDispatch,
  enableWorkflow,
  disableWorkflow,
  getWorkflowRun,
  listWorkflowRuns,
  createGist,
  updateGist,
  listGistsForUser,
  listReleases,
  // Toolsets repos, git and search: branches, tags, releases, comparisons, trees, commits of several files, forks, search.
  listBranches,
  listTags,
  getReleaseByTag,
  getLatestRelease,
  compareCommits,
  getTree,
  commitFiles,
  deleteFile,
  createFork,
  searchCode,
  searchCommits,
  searchRepositories,
  // Toolsets pull_requests, issues, users and context: what a pull request, issue, comment,
  // label, collaborator or mention trigger wakes an agent to do.
  getPullRequest,
  getPullRequestDiff,
  listPullRequestFiles,
  listChecksForRef,
  createPullRequestReview,
  replyToReviewComment,
  updatePullRequestBranch,
  mergePullRequest,
  listPullRequests,
  getIssue,
  listIssueComments,
  addLabels,
  removeLabel,
  listIssues,
  getAuthenticatedUser,
  getCollaboratorPermission,
  // discussions, actions: answering a discussion, a finished workflow run or job.
  getDiscussion,
  addDiscussionComment,
  listJobsForWorkflowRun,
  getJobLogs,
  rerunFailedJobs,
  cancelWorkflowRun,
];
