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
  // discussions, actions: answering a discussion, a finished workflow run or job.
  getDiscussion,
  addDiscussionComment,
  listJobsForWorkflowRun,
  getJobLogs,
  rerunFailedJobs,
  cancelWorkflowRun,
];
