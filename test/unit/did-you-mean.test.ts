import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../shared/domain/did-you-mean';
import { triggerIds } from '../../shared/domain/triggers';

describe('did you mean', () => {
  it('measures edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('finds the trigger meant by a typo, a missing prefix or a plural', () => {
    expect(closest('github.new_isue', triggerIds)[0]).toBe('github.new_issue');
    expect(closest('new_issues', triggerIds)[0]).toBe('github.new_issue');
    expect(didYouMean('github.workflow_run_complete', triggerIds)).toBe(' Did you mean github.workflow_run_completed?');
  });

  it('suggests nothing for something far from every id', () => {
    expect(didYouMean('zzzzzzzzzzzzzz', triggerIds)).toBe('');
    expect(didYouMean('', triggerIds)).toBe('');
  });
});
