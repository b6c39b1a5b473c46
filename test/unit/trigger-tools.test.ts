import { describe, expect, it } from 'vitest';
import { allProviderTools } from '../../functions/tool-step/registry';
import { triggerTools } from '../../shared/domain/trigger-tools';
import { triggerIds } from '../../shared/domain/triggers';
import { stepIndex } from '../../shared/tools/catalog';

/**
 * Tools that the catalog names and whose steps are added beside these on their own branches
 * (pull requests, issues, users; repositories, git, search). The list goes once they are
 * registered: the test below then holds every name against the registry.
 */
const pendingTools = new Set([
  'github.get_pull_request',
  'github.get_pull_request_diff',
  'github.list_pull_request_files',
  'github.list_checks_for_ref',
  'github.create_pull_request_review',
  'github.reply_to_review_comment',
  'github.update_pull_request_branch',
  'github.merge_pull_request',
  'github.list_pull_requests',
  'github.get_issue',
  'github.list_issue_comments',
  'github.add_labels',
  'github.remove_label',
  'github.list_issues',
  'github.get_authenticated_user',
  'github.get_collaborator_permission',
  'github.list_branches',
  'github.list_tags',
  'github.get_release_by_tag',
  'github.get_latest_release',
  'github.compare_commits',
  'github.get_tree',
  'github.commit_files',
  'github.delete_file',
  'github.create_fork',
  'github.search_code',
  'github.search_commits',
  'github.search_repositories',
]);

const registered = stepIndex(allProviderTools());

describe('the trigger catalog names the tools that answer each trigger', () => {
  it('every trigger names at least one tool, of its own provider', () => {
    for (const id of triggerIds) {
      const tools = triggerTools[id];
      expect(tools.length, id).toBeGreaterThan(0);
      for (const tool of tools) expect(tool.split('.')[0], `${id} names ${tool}`).toBe(id.split('.')[0]);
    }
  });

  it('every tool named is a registered step (or one of the steps still to be merged)', () => {
    const unknown = [...new Set(triggerIds.flatMap((id) => triggerTools[id]))].filter((t) => !registered.has(t) && !pendingTools.has(t));
    expect(unknown).toEqual([]);
  });

  it('a pending tool that is registered is taken off the pending list', () => {
    expect([...pendingTools].filter((t) => registered.has(t))).toEqual([]);
  });

  it('the discussion and workflow run triggers are answered by the typed tools that act on them', () => {
    expect(triggerTools['github.new_discussion']).toEqual(['github.get_discussion', 'github.add_discussion_comment']);
    expect(triggerTools['github.workflow_run_completed']).toEqual(
      expect.arrayContaining(['github.list_jobs_for_workflow_run', 'github.get_job_logs', 'github.rerun_failed_jobs']),
    );
  });
});
