import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/domain/errors';
import { present } from '../../shared/domain/present';

describe('present', () => {
  it('hands back a value that is there, falsy ones included', () => {
    expect(present(0, 'count')).toBe(0);
    expect(present('', 'name')).toBe('');
    expect(present(false, 'flag')).toBe(false);
  });

  it('throws an internal AppError naming what is missing instead of carrying undefined on', () => {
    expect(() => present(undefined, 'queued task')).toThrow(AppError);
    expect(() => present(null, 'queued task')).toThrow(
      expect.objectContaining({ code: 'internal', message: expect.stringContaining('queued task') }),
    );
  });
});
