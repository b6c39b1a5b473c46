import { describe, expect, it } from 'vitest';
import { allProviderTools } from '../../shared/wiring/provider-tools';
import { triggerTools } from '../../shared/domain/trigger-tools';
import { triggerIds } from '../../shared/domain/triggers';
import { stepIndex } from '../../shared/tools/catalog';

const registered = stepIndex(allProviderTools());

describe('the trigger catalog names the tools that answer each trigger', () => {
  it('every trigger names at least one tool, of its own provider', () => {
    for (const id of triggerIds) {
      const tools = triggerTools[id];
      expect(tools.length, id).toBeGreaterThan(0);
      for (const tool of tools) expect(tool.split('.')[0], `${id} names ${tool}`).toBe(id.split('.')[0]);
    }
  });

  it('every tool named is a registered step', () => {
    const unknown = [...new Set(triggerIds.flatMap((id) => triggerTools[id]))].filter((t) => !registered.has(t));
    expect(unknown).toEqual([]);
  });

  it('the discussion and workflow run triggers are answered by the typed tools that act on them', () => {
    expect(triggerTools['github.new_discussion']).toEqual(['github.get_discussion', 'github.add_discussion_comment']);
    expect(triggerTools['github.workflow_run_completed']).toEqual(
      expect.arrayContaining(['github.list_jobs_for_workflow_run', 'github.get_job_logs', 'github.rerun_failed_jobs']),
    );
  });
});
