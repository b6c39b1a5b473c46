import { describe, expect, it } from 'vitest';
import { AgentPace } from '../../shared/dispatch/agent-pace';
import { TestClock } from '../helpers/test-clock';

describe('the pace of an agent runtime', () => {
  it('is slow once half of at least five recent answers took two seconds or more', () => {
    const clock = new TestClock();
    const pace = new AgentPace(clock);
    for (let i = 0; i < 4; i++) pace.note(3_000);
    // Four answers are too few to judge by.
    expect(pace.isSlow()).toBe(false);
    pace.note(20);
    expect(pace.isSlow()).toBe(true);
    // Quick answers outnumber the slow ones again.
    for (let i = 0; i < 4; i++) pace.note(20);
    expect(pace.isSlow()).toBe(false);
  });

  it('counts an answer that never came (the lane limit) as slow, and a quick one just under two seconds as quick', () => {
    const pace = new AgentPace(new TestClock());
    for (let i = 0; i < 5; i++) pace.note(1_999);
    expect(pace.isSlow()).toBe(false);
    for (let i = 0; i < 5; i++) pace.note(10_000);
    expect(pace.isSlow()).toBe(true);
  });

  it('forgets answers older than a minute, so an agent that was slow is measured again', () => {
    const clock = new TestClock();
    const pace = new AgentPace(clock);
    for (let i = 0; i < 10; i++) pace.note(3_000);
    expect(pace.isSlow()).toBe(true);
    clock.advance(60_001);
    expect(pace.isSlow()).toBe(false);
  });

  it('judges by the last twenty answers only', () => {
    const pace = new AgentPace(new TestClock());
    for (let i = 0; i < 30; i++) pace.note(5_000);
    for (let i = 0; i < 11; i++) pace.note(10);
    // Of the last twenty, nine were slow.
    expect(pace.isSlow()).toBe(false);
  });

  it('is known once it holds five answers of the last minute, and tells whether the latest was slow', () => {
    const clock = new TestClock();
    const pace = new AgentPace(clock);
    expect(pace.latestSlow()).toBeUndefined();
    for (let i = 0; i < 4; i++) pace.note(20);
    expect(pace.known()).toBe(false);
    pace.note(3_000);
    expect(pace.known()).toBe(true);
    expect(pace.latestSlow()).toBe(true);
    clock.advance(60_001);
    expect(pace.known()).toBe(false);
    expect(pace.latestSlow()).toBeUndefined();
  });
});
